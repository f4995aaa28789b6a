import type { AreaMessage, ChatItem, ChatSnapshot, ContextMeter, HostToWebview, ModelPresetView } from '../shared/protocol';
import { assertNever } from '../shared/protocol';
import { assistantItem, renderChatItem } from './chatItems';
import { contextMeterNode } from './contextMeter';
import { CHAT_COMMANDS } from '../shared/system/chatCommands';
import { el } from './dom';
import { interceptLinks } from './markdown';
import { panelState, updatePanelState } from './panelState';
import { SlashMenu } from './slashMenu';
import type { Send, TabView } from './tabView';

/** The chat box's own commands, offered in the `/` menu beside the skills (core/agent/slashCommand.ts runs them). */
const BUILT_IN_COMMANDS = Object.entries(CHAT_COMMANDS).map(([name, description]) => ({ name, description: `Built-in: ${description}` }));

interface ChatSlice {
  draft?: string;
}

function button(label: string, onClick: () => void, attrs: Record<string, string> = {}): HTMLButtonElement {
  const node = el('button', { type: 'button', class: 'secondary', ...attrs }, label);
  node.addEventListener('click', onClick);
  return node;
}

/**
 * The Chat tab. The host owns the conversation; this view renders items keyed by id, appends
 * streamed text, and re-renders a streaming reply's Markdown at most once per animation frame
 * so a fast stream cannot starve input handling.
 */
export class ChatView implements TabView<'chat'> {
  readonly element: HTMLElement;
  private readonly log: HTMLElement;
  private readonly input: HTMLTextAreaElement;
  private readonly sendButton: HTMLButtonElement;
  private readonly stopButton: HTMLButtonElement;
  private readonly header: HTMLElement;
  private readonly meterSlot: HTMLElement;
  private readonly setupSlot: HTMLElement;
  /** Where main.ts puts the consent card for project skills (consentCard.ts). */
  readonly consentSlot: HTMLElement;
  private readonly slash: SlashMenu;
  private readonly items = new Map<string, ChatItem>();
  private readonly nodes = new Map<string, HTMLElement>();
  private readonly dirty = new Set<string>();
  private frame = 0;
  private busy = false;
  private sent: string | undefined;
  private editing = false;

  constructor(private readonly send: Send) {
    this.header = el('div', { class: 'chat-header' });
    this.meterSlot = el('div', { class: 'context-slot' });
    this.setupSlot = el('div', { class: 'setup-slot' });
    this.consentSlot = el('div', { class: 'consent-host' });
    this.log = el('div', { class: 'chat-log', role: 'log', 'aria-label': 'Conversation', 'aria-live': 'polite', tabindex: '0' });
    interceptLinks(this.log, (href) => send({ type: 'chat/openLink', href }));
    this.input = el('textarea', { class: 'chat-input', rows: '3', 'aria-label': 'Message', placeholder: 'Ask Skillwright… (/ for skills, Enter to send, Shift+Enter for a new line)' });
    this.input.value = (panelState()['chat'] as ChatSlice | undefined)?.draft ?? '';
    this.slash = new SlashMenu(this.input);
    this.sendButton = button('Send', () => this.submit(), { class: 'primary', 'aria-label': 'Send message' });
    this.stopButton = button('Stop', () => send({ type: 'chat/stop' }), { 'aria-label': 'Stop the reply' });
    this.stopButton.hidden = true;
    const composer = el(
      'div',
      { class: 'composer' },
      this.slash.element,
      this.input,
      el(
        'div',
        { class: 'actions composer-actions', role: 'toolbar', 'aria-label': 'Message actions' },
        this.sendButton,
        this.stopButton,
        button('Retry', () => send({ type: 'chat/retry' }), { 'aria-label': 'Retry the last message' }),
        button('Edit Last', () => this.editLast(), { 'aria-label': 'Edit and resend the last message' }),
      ),
    );
    this.input.addEventListener('keydown', (event) => this.onKey(event));
    this.input.addEventListener('input', () => {
      updatePanelState({ chat: { draft: this.input.value } satisfies ChatSlice });
      this.slash.update();
    });
    this.element = el('div', { class: 'chat' }, this.header, this.setupSlot, this.consentSlot, this.log, composer);
  }

  handle(message: AreaMessage<HostToWebview, 'chat'>): void {
    switch (message.type) {
      case 'chat/snapshot':
        this.renderSnapshot(message.chat);
        return;
      case 'chat/item':
        this.upsert(message.item);
        return;
      case 'chat/delta':
        this.appendDelta(message.id, message.delta);
        return;
      case 'chat/busy':
        this.setBusy(message.busy);
        return;
      case 'chat/context':
        this.renderMeter(message.context);
        return;
      case 'chat/skillNames':
        this.slash.setSkills([...BUILT_IN_COMMANDS, ...message.skills.filter((skill) => !BUILT_IN_COMMANDS.some((c) => c.name === skill.name))]);
        return;
      default:
        assertNever(message);
    }
  }

  focus(): void {
    this.input.focus();
  }

  private renderSnapshot(chat: ChatSnapshot): void {
    this.items.clear();
    this.nodes.clear();
    this.dirty.clear();
    const fragment = document.createDocumentFragment();
    for (const item of chat.items) {
      this.items.set(item.id, item);
      const node = this.render(item);
      this.nodes.set(item.id, node);
      fragment.append(node);
    }
    this.log.replaceChildren(fragment);
    this.renderHeader(chat);
    this.renderSetup(chat.setup?.presets);
    this.setBusy(chat.busy);
    if (chat.focusItemId) {
      const node = this.nodes.get(chat.focusItemId);
      if (node) {
        node.classList.add('focused-hit');
        node.scrollIntoView({ block: 'center' });
        node.setAttribute('tabindex', '-1');
        node.focus();
        return;
      }
    }
    this.log.scrollTop = this.log.scrollHeight;
  }

  private renderHeader(chat: ChatSnapshot): void {
    const title = chat.title ?? (chat.items.length === 0 ? 'New chat' : 'Chat');
    this.header.replaceChildren(
      el('div', { class: 'chat-title' }, el('h2', { 'data-testid': 'chat-title' }, title), chat.modelLabel ? el('span', { class: 'muted', 'data-testid': 'chat-model' }, chat.modelLabel) : ''),
      el(
        'div',
        { class: 'actions', role: 'toolbar', 'aria-label': 'Chat actions' },
        button('New Chat', () => this.send({ type: 'chat/new' })),
        button('Compact', () => this.send({ type: 'chat/compact' }), { 'aria-label': 'Compact the conversation: summarise older messages', title: 'Summarise older messages to free the context window (also /compact)' }),
        button('Save as Skill', () => this.send({ type: 'chat/saveAsSkill' }), { 'aria-label': 'Save this chat as a skill' }),
      ),
      this.meterSlot,
    );
    if (chat.context) this.renderMeter(chat.context);
    else this.meterSlot.replaceChildren();
    if (!chat.trusted) this.header.append(el('p', { class: 'notice warning', role: 'note' }, 'Restricted Mode: the agent can read but not change or run anything, and project skills and memory are left out.'));
  }

  /** The context meter; a disclosure the person opened stays open as the figures change. */
  private renderMeter(context: ContextMeter): void {
    const wasOpen = this.meterSlot.querySelector('details')?.open ?? false;
    const node = contextMeterNode(context);
    if (node instanceof HTMLDetailsElement) node.open = wasOpen;
    this.meterSlot.replaceChildren(node);
  }

  private renderSetup(presets: readonly ModelPresetView[] | undefined): void {
    if (!presets) {
      this.setupSlot.replaceChildren();
      return;
    }
    const list = el('div', { class: 'preset-list', role: 'group', 'aria-label': 'Model providers' });
    for (const preset of presets) {
      list.append(
        button(preset.label, () => this.send({ type: 'model/configure', preset: preset.id }), {
          'aria-label': `Set up ${preset.label}`,
          title: `${preset.baseUrl || 'your own URL'}${preset.needsKey ? ' · needs an API key' : ' · no key needed'}`,
        }),
      );
    }
    this.setupSlot.replaceChildren(
      el(
        'section',
        { class: 'card setup', 'aria-label': 'Set up a model' },
        el('h3', {}, 'Set up a model'),
        el('p', {}, 'Skillwright talks to any OpenAI-compatible endpoint, or to a VS Code language model when one is installed. Pick where your model runs:'),
        list,
      ),
    );
  }

  private render(item: ChatItem): HTMLElement {
    const node = renderChatItem(item, this.send);
    node.dataset['itemId'] = item.id;
    return node;
  }

  private upsert(item: ChatItem): void {
    const stick = this.atBottom();
    this.items.set(item.id, item);
    this.dirty.delete(item.id);
    const node = this.render(item);
    const old = this.nodes.get(item.id);
    // A tool card the person opened stays open when its result (or a workflow step) arrives.
    const wasOpen = old ? toolDetailsOf(old) : undefined;
    const isOpen = toolDetailsOf(node);
    if (wasOpen && isOpen) isOpen.open = wasOpen.open;
    if (old) old.replaceWith(node);
    else this.log.append(node);
    this.nodes.set(item.id, node);
    if (item.kind === 'user' && this.sent !== undefined && item.text === this.sent) {
      if (this.input.value === this.sent) this.input.value = '';
      updatePanelState({ chat: { draft: this.input.value } satisfies ChatSlice });
      this.sent = undefined;
    }
    if (item.kind === 'approval' && item.state === 'pending') node.querySelector('button')?.focus();
    if (stick) this.log.scrollTop = this.log.scrollHeight;
  }

  private appendDelta(id: string, delta: string): void {
    const item = this.items.get(id);
    if (item?.kind !== 'assistant') return;
    this.items.set(id, { ...item, text: item.text + delta });
    this.dirty.add(id);
    if (!this.frame) this.frame = requestAnimationFrame(() => this.flush());
  }

  private flush(): void {
    this.frame = 0;
    const stick = this.atBottom();
    for (const id of this.dirty) {
      const item = this.items.get(id);
      const old = this.nodes.get(id);
      if (item?.kind !== 'assistant' || !old) continue;
      const node = assistantItem(item, this.send);
      node.dataset['itemId'] = id;
      old.replaceWith(node);
      this.nodes.set(id, node);
    }
    this.dirty.clear();
    if (stick) this.log.scrollTop = this.log.scrollHeight;
  }

  private atBottom(): boolean {
    return this.log.scrollHeight - this.log.scrollTop - this.log.clientHeight < 40;
  }

  private setBusy(busy: boolean): void {
    this.busy = busy;
    this.stopButton.hidden = !busy;
    this.sendButton.disabled = busy;
    this.log.setAttribute('aria-busy', String(busy));
    if (!busy && document.activeElement === this.stopButton) this.input.focus();
  }

  private submit(): void {
    const text = this.input.value;
    if (!text.trim() || this.busy) return;
    this.sent = text;
    if (this.editing) {
      this.editing = false;
      this.input.classList.remove('editing');
      this.send({ type: 'chat/editLast', text });
    } else {
      this.send({ type: 'chat/send', text });
    }
  }

  private editLast(): void {
    const last = [...this.items.values()].reverse().find((item) => item.kind === 'user');
    if (!last || last.kind !== 'user') return;
    this.input.value = last.text;
    this.editing = true;
    this.input.classList.add('editing');
    this.input.focus();
  }

  private onKey(event: KeyboardEvent): void {
    if (this.slash.onKey(event)) return;
    if (event.key === 'Enter' && !event.shiftKey && !event.isComposing) {
      event.preventDefault();
      this.submit();
    } else if (event.key === 'Escape' && this.busy) {
      event.preventDefault();
      this.send({ type: 'chat/stop' });
    } else if (event.key === 'Escape' && this.editing) {
      this.editing = false;
      this.input.classList.remove('editing');
    }
  }
}

/** A tool item's collapsible card: the node itself, or the first card of a skill run with nested steps. */
function toolDetailsOf(node: HTMLElement): HTMLDetailsElement | undefined {
  if (node instanceof HTMLDetailsElement) return node;
  const inner = node.firstElementChild;
  return node.classList.contains('tool-run') && inner instanceof HTMLDetailsElement ? inner : undefined;
}

export function createChatView(send: Send): ChatView {
  return new ChatView(send);
}
