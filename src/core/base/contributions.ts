/**
 * Identifiers Skillwright contributes to VS Code. package.json must list exactly these (a unit test
 * checks both directions), and the host registers a handler for every command through a record
 * typed by CommandId, so a missing handler is a compile error.
 */
export const COMMANDS = {
  openPanel: 'skillwright.openPanel',
  showLogs: 'skillwright.showLogs',
  openSettings: 'skillwright.openSettings',
  reindexSkills: 'skillwright.reindexSkills',
  configureModel: 'skillwright.configureModel',
  testConnection: 'skillwright.testConnection',
  openSkillPreview: 'skillwright.openSkillPreview',
  openMemory: 'skillwright.openMemory',
  newChat: 'skillwright.newChat',
  compactConversation: 'skillwright.compactConversation',
  runSkill: 'skillwright.runSkill',
  stop: 'skillwright.stop',
  manageApprovals: 'skillwright.manageApprovals',
  searchSessions: 'skillwright.searchSessions',
  newSkillFromTemplate: 'skillwright.newSkillFromTemplate',
  openSkill: 'skillwright.openSkill',
  saveAsSkill: 'skillwright.saveAsSkill',
  saveSelectionAsSkill: 'skillwright.saveSelectionAsSkill',
  showTrace: 'skillwright.showTrace',
  testTriggering: 'skillwright.testTriggering',
  reviewProjectSkills: 'skillwright.reviewProjectSkills',
  importSkills: 'skillwright.importSkills',
  checkSkillUpdates: 'skillwright.checkSkillUpdates',
  restoreSkillsFromLock: 'skillwright.restoreSkillsFromLock',
  copyToAgentsSkills: 'skillwright.copyToAgentsSkills',
  moveToAgentsSkills: 'skillwright.moveToAgentsSkills',
} as const;

export type CommandKey = keyof typeof COMMANDS;
export type CommandId = (typeof COMMANDS)[CommandKey];

export const VIEWS = {
  panel: 'skillwright.panel',
} as const;

export const VIEW_CONTAINER = 'skillwright';

export const SETTINGS = {
  section: 'skillwright',
  modelBaseUrl: 'model.baseUrl',
  modelName: 'model.name',
  extraRoots: 'skills.extraRoots',
  disabledRoots: 'skills.disabledRoots',
  disabledSkills: 'skills.disabled',
  projectConsent: 'skills.projectConsent',
  catalogBudget: 'catalog.budgetTokens',
  modelProvider: 'model.provider',
  summaryModel: 'sessions.summaryModel',
  maxSteps: 'agent.maxSteps',
  contextWindow: 'context.window',
  compactThreshold: 'context.compactThreshold',
  compactionModel: 'context.compactionModel',
  embeddings: 'retrieval.embeddings',
  embeddingModel: 'retrieval.embeddingModel',
  triggerTestRuns: 'triggerTest.runs',
  memoryReview: 'memory.review',
  memoryProjectLimit: 'memory.projectCharLimit',
  memoryUserLimit: 'memory.userCharLimit',
  autoApproveEdits: 'approvals.autoApproveEdits',
  autoApproveCommands: 'approvals.autoApproveCommands',
} as const;

/** Context keys set with `setContext`, for `when` clauses in package.json. */
export const CONTEXT_KEYS = {
  busy: 'skillwright.busy',
} as const;

/** Keys of values kept in VS Code's workspace or global state. */
export const STATE_KEYS = {
  allowlist: 'skillwright.approvals.allowlist',
  learnedWindows: 'skillwright.context.learnedWindows',
  /** Consent decisions for project skills, by folder content hash (core/skills/consent). */
  projectConsent: 'skillwright.skills.projectConsent',
} as const;

export const OUTPUT_CHANNEL_NAME = 'Skillwright';
