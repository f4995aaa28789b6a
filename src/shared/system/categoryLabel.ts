/** The name shown for skills that sit directly in a skills folder, in every view and tool result. */
export const TOP_LEVEL_CATEGORY_LABEL = '(top level)';
