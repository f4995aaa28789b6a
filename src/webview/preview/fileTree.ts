import type { PreviewToHost, SkillPreview } from '../../shared/previewProtocol';
import { el } from '../dom';

type LinkedFile = SkillPreview['files'][number];

interface TreeNode {
  readonly name: string;
  readonly path: string;
  file?: LinkedFile;
  readonly children: Map<string, TreeNode>;
}

function buildTree(files: readonly LinkedFile[]): TreeNode {
  const root: TreeNode = { name: '', path: '', children: new Map() };
  for (const file of files) {
    let node = root;
    const segments = file.path.split('/');
    segments.forEach((segment, index) => {
      let child = node.children.get(segment);
      if (!child) {
        child = { name: segment, path: segments.slice(0, index + 1).join('/'), children: new Map() };
        node.children.set(segment, child);
      }
      node = child;
    });
    node.file = file;
  }
  return root;
}

function isFolder(node: TreeNode): boolean {
  return node.children.size > 0 || node.file?.isFolder === true;
}

/**
 * The skill's linked files as nested lists: folders are disclosure widgets (Enter or Space opens
 * and closes them), files are buttons that ask the host to open them; the host checks that the
 * path stays inside the skill folder. Missing files are marked in text, not only by colour.
 */
export function renderFileTree(files: readonly LinkedFile[], send: (message: PreviewToHost) => void): HTMLElement {
  if (files.length === 0) {
    return el('p', { class: 'muted' }, 'No support files: references/, templates/, scripts/ and assets/ are empty or absent, and the body links to no file.');
  }
  const list = (node: TreeNode, label?: string): HTMLElement => {
    const ul = el('ul', { class: 'file-tree', ...(label ? { 'aria-label': label } : {}) });
    const children = [...node.children.values()].sort((a, b) => Number(isFolder(b)) - Number(isFolder(a)) || (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
    for (const child of children) ul.append(el('li', {}, entry(child)));
    return ul;
  };
  const entry = (node: TreeNode): HTMLElement => {
    const missing = node.file?.exists === false;
    const marker = missing ? el('span', { class: 'badge warn missing' }, 'missing') : undefined;
    if (isFolder(node)) {
      const summary = el('summary', { class: missing ? 'folder missing' : 'folder' }, `${node.name}/`, marker ? ' ' : '', marker);
      const details = el('details', { open: '' }, summary, list(node));
      return details;
    }
    const button = el(
      'button',
      { type: 'button', class: missing ? 'file missing' : 'file', title: missing ? `${node.path} does not exist; click to create it` : `Open ${node.path}` },
      node.name,
      marker ? ' ' : '',
      marker,
    );
    button.addEventListener('click', () => send({ type: 'preview/openFile', path: node.path }));
    return button;
  };
  return list(buildTree(files), 'Linked files');
}
