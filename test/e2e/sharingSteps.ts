import type { Locator, Page } from 'playwright-core';
import { textNow } from '../harness/browser';
import { until } from '../harness/until';

/** A notification toast holding `text`. */
export function toast(page: Page, text: string | RegExp): Locator {
  return page.locator('.notification-toast', { hasText: text }).first();
}

/** The labels of a modal dialog's buttons, sorted (their order depends on the platform). */
export async function dialogButtons(dialog: Locator): Promise<string[]> {
  return (await dialog.locator('.dialog-buttons .monaco-button').allInnerTexts()).map((text) => text.trim()).sort();
}

/** Picks the row of the open quick pick whose label holds `label`, by typing it and pressing Enter once it is listed first. */
export async function pickQuickInput(page: Page, label: string): Promise<void> {
  const input = page.locator('.quick-input-widget input');
  await input.fill(label);
  await until(`"${label}" listed first`, async () => (await textNow(page.locator('.quick-input-list .monaco-list-row'))).includes(label));
  await page.keyboard.press('Enter');
}

/**
 * Chooses a folder in the workbench's own file dialog (code-server has no native one): a quick
 * input whose box holds a path, and the open button (`openLabel`). The path typed with a trailing
 * slash lists the folder; once the list shows `entry` (one of its files or folders), the button
 * takes the folder. Enter or a click while the dialog is still reading is ignored, so a click that
 * did not close it is repeated.
 */
export async function chooseFolder(page: Page, folder: string, entry: string, openLabel: string): Promise<void> {
  const widget = page.locator('.quick-input-widget');
  const input = widget.locator('input');
  await until('the file dialog', async () => (await input.inputValue({ timeout: 1_000 }).catch(() => '')).startsWith('/'));
  await input.fill(`${folder}/`);
  const rows = widget.locator('.quick-input-list .monaco-list-row');
  await until(`the file dialog to list ${folder}`, async () => (await rows.allInnerTexts().catch(() => [])).some((text) => text.trim() === entry));
  const open = widget.getByRole('button', { name: openLabel });
  for (let attempt = 1; ; attempt++) {
    await open.click();
    try {
      await until('the file dialog to close', async () => (await open.count()) === 0 || !(await open.isVisible()), 5_000);
      return;
    } catch (error) {
      if (attempt === 3) throw error;
    }
  }
}

/**
 * The text of the active editor as it is drawn: Monaco keeps the visible lines in the DOM, placed
 * by their `top` rather than in order, and draws a wrapped line as several rows of which only the
 * first has a line number. Rows are put in order and a wrapped line joined again; non-breaking
 * spaces are made plain. Enough for a short document.
 */
export async function editorText(page: Page): Promise<string> {
  return page.evaluate(`(() => {
    const editor = document.querySelector('.editor-group-container.active .monaco-editor');
    if (!editor) return '';
    const top = (node) => Math.round(parseFloat(node.style.top) || 0);
    const numbered = new Set([...editor.querySelectorAll('.margin-view-overlays > div')].filter((row) => row.innerText.trim() !== '').map(top));
    const rows = [...editor.querySelectorAll('.view-lines .view-line')].map((row) => ({ top: top(row), text: row.innerText.replace(/\\u00a0/g, ' ') }));
    rows.sort((a, b) => a.top - b.top);
    const lines = [];
    for (const row of rows) {
      if (lines.length === 0 || numbered.has(row.top)) lines.push(row.text);
      else lines[lines.length - 1] += row.text;
    }
    return lines.join('\\n');
  })()`);
}
