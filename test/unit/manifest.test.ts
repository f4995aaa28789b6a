import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { COMMANDS, CONTEXT_KEYS, SETTINGS, STATE_KEYS, VIEW_CONTAINER, VIEWS } from '../../src/core/base/contributions';
import { repoRoot } from '../repoRoot';

interface Manifest {
  name: string;
  publisher: string;
  icon: string;
  main: string;
  activationEvents: string[];
  bin: Record<string, string>;
  engines: { vscode: string };
  devDependencies: Record<string, string>;
  capabilities: { untrustedWorkspaces: { supported: string | boolean; description?: string } };
  contributes: {
    commands: { command: string; title: string; category: string; icon?: string }[];
    viewsContainers: { activitybar: { id: string; icon: string }[] };
    views: Record<string, { id: string; type?: string }[]>;
    menus: Record<string, { command: string }[]>;
    configuration: { properties: Record<string, { type: string }> };
  };
}

const root = repoRoot();
const manifest = JSON.parse(fs.readFileSync(path.join(root, 'package.json'), 'utf8')) as Manifest;

function sourceFiles(dir: string): string[] {
  return fs.readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const full = path.join(dir, entry.name);
    return entry.isDirectory() ? sourceFiles(full) : entry.name.endsWith('.ts') ? [full] : [];
  });
}

describe('package.json manifest', () => {
  it('contributes exactly the commands the code registers', () => {
    const declared = manifest.contributes.commands.map((c) => c.command).sort();
    assert.deepEqual(declared, Object.values(COMMANDS).sort());
  });

  it('puts every command in the Skillwright category with an icon', () => {
    for (const command of manifest.contributes.commands) {
      assert.equal(command.category, 'Skillwright', command.command);
      assert.ok(command.icon, `${command.command} has no icon`);
      assert.ok(command.title.length > 0);
    }
  });

  it('contributes exactly the views the code provides, in our activity-bar container', () => {
    const containers = manifest.contributes.viewsContainers.activitybar;
    assert.deepEqual(containers.map((c) => c.id), [VIEW_CONTAINER]);
    for (const container of containers) {
      assert.ok(fs.existsSync(path.join(root, container.icon)), `missing ${container.icon}`);
    }
    const views = Object.values(manifest.contributes.views).flat();
    assert.deepEqual(views.map((v) => v.id).sort(), Object.values(VIEWS).sort());
    assert.ok(views.every((v) => v.type === 'webview'));
  });

  it('refers only to known commands and views from menus', () => {
    const known = new Set<string>(Object.values(COMMANDS));
    for (const [menu, items] of Object.entries(manifest.contributes.menus)) {
      for (const item of items) assert.ok(known.has(item.command), `${menu} refers to ${item.command}`);
    }
  });

  it('has no skillwright.* id in the code that the manifest lacks', () => {
    const declared = new Set([
      `${manifest.publisher}.${manifest.name}`,
      ...manifest.contributes.commands.map((c) => c.command),
      ...Object.values(manifest.contributes.views).flat().map((v) => v.id),
      ...Object.keys(manifest.contributes.configuration.properties),
      ...Object.values(CONTEXT_KEYS),
      ...Object.values(STATE_KEYS),
    ]);
    // A settings search query may name a group of settings, e.g. `skillwright.memory`.
    const groups = new Set(Object.keys(manifest.contributes.configuration.properties).map((key) => key.slice(0, key.lastIndexOf('.'))));
    for (const group of groups) declared.add(group);
    const used = new Set<string>();
    for (const file of sourceFiles(path.join(root, 'src'))) {
      for (const match of fs.readFileSync(file, 'utf8').matchAll(/['"`](skillwright\.[A-Za-z.]+)['"`]/g)) {
        used.add(match[1] ?? assert.fail('the id group always takes part in a match'));
      }
    }
    const unknown = [...used].filter((id) => !declared.has(id));
    assert.deepEqual(unknown, []);
  });

  it('activates for every webview panel the code restores after a reload, and for no other', () => {
    // VS Code hands a panel back to its serializer only if the extension activates for its view type.
    const viewTypes = new Set<string>();
    for (const file of sourceFiles(path.join(root, 'src', 'host'))) {
      const text = fs.readFileSync(file, 'utf8');
      if (!text.includes('registerWebviewPanelSerializer(')) continue;
      for (const match of text.matchAll(/const \w+_VIEW_TYPE = '([^']+)'/g)) viewTypes.add(match[1] ?? assert.fail('the view type group always takes part in a match'));
    }
    assert.ok(viewTypes.size > 0, 'the SKILL.md preview registers a panel serializer');
    const declared = manifest.activationEvents.filter((event) => event.startsWith('onWebviewPanel:')).map((event) => event.slice('onWebviewPanel:'.length));
    assert.deepEqual(declared.sort(), [...viewTypes].sort());
  });

  it('declares the settings the code reads, and no secret in settings', () => {
    const keys = Object.keys(manifest.contributes.configuration.properties).sort();
    const { section, ...settings } = SETTINGS;
    assert.deepEqual(keys, Object.values(settings).map((key) => `${section}.${key}`).sort());
    assert.ok(!keys.some((key) => /api.?key|secret|password|access.?token|\.token$/i.test(key)), 'API keys belong in SecretStorage');
  });

  it('targets VS Code 1.100 at the newest, with matching API types', () => {
    const engine = /^\^?(\d+)\.(\d+)/.exec(manifest.engines.vscode);
    assert.ok(engine, manifest.engines.vscode);
    assert.ok(Number(engine[1]) === 1 && Number(engine[2]) <= 100, `engines.vscode ${manifest.engines.vscode}`);
    const types = /(\d+)\.(\d+)/.exec(manifest.devDependencies['@types/vscode'] ?? '');
    assert.ok(types && Number(types[2]) <= Number(engine[2]), '@types/vscode must not be newer than engines.vscode');
  });

  it('supports Restricted Mode in a limited way, with a description', () => {
    assert.equal(manifest.capabilities.untrustedWorkspaces.supported, 'limited');
    assert.ok((manifest.capabilities.untrustedWorkspaces.description ?? '').length > 40);
  });

  it('names the extension, icon, entry points and CLI', () => {
    assert.equal(manifest.name, 'skillwright');
    assert.ok(manifest.publisher);
    assert.ok(fs.existsSync(path.join(root, manifest.icon)), manifest.icon);
    assert.equal(manifest.main, './dist/extension.js');
    assert.equal(manifest.bin.skillwright, './dist/cli.js');
  });
});
