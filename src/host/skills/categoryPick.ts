import { TOP_LEVEL_CATEGORY_LABEL } from '../../shared/system/categoryLabel';
import * as vscode from 'vscode';
import { checkCategory } from '../../core/skills/model/skillPaths';

type Picked<T> = vscode.QuickPickItem & { readonly value: T };
/** The value of the row that shows why a typed category is invalid; accepting it does nothing. */
const INVALID = '\u0000invalid';

/** The categories of one root to pick from, or a new one typed in (checked as it is typed). */
export function pickCategory(categories: readonly string[], rootLabel: string, title: string): Promise<string | undefined> {
  const base: Picked<string>[] = [
    { label: TOP_LEVEL_CATEGORY_LABEL, description: `directly in ${rootLabel}`, value: '' },
    ...categories.map((category) => ({ label: category, description: `${rootLabel}/${category}`, value: category })),
  ];
  const pick = vscode.window.createQuickPick<Picked<string>>();
  pick.title = title;
  pick.placeholder = 'Pick a category, or type a new one (e.g. devops/k8s)';
  pick.ignoreFocusOut = true;
  const update = () => {
    const typed = pick.value.trim();
    const checked = checkCategory(typed);
    if (typed === '' || (checked.ok && categories.includes(checked.value))) {
      pick.items = base;
      return;
    }
    const item: Picked<string> = checked.ok
      ? { label: checked.value, description: 'new category', alwaysShow: true, value: checked.value }
      : { label: typed, description: `$(error) ${checked.error}`, alwaysShow: true, value: INVALID };
    pick.items = [item, ...base];
  };
  update();
  return new Promise((resolve) => {
    pick.onDidChangeValue(update);
    pick.onDidAccept(() => {
      const item = pick.selectedItems[0] ?? pick.activeItems[0];
      if (!item || item.value === INVALID) return;
      resolve(item.value);
      pick.hide();
    });
    pick.onDidHide(() => {
      resolve(undefined);
      pick.dispose();
    });
    pick.show();
  });
}
