import type { WorkflowStepView } from '../../shared/previewProtocol';
import { el } from '../dom';

const SVG_NS = 'http://www.w3.org/2000/svg';
const NODE_WIDTH = 220;
const PADDING = 8;
const LINE_HEIGHT = 17;
const GAP_X = 28;
const GAP_Y = 40;
const MARGIN = 12;
/** Characters that fit a node line at the editor's usual font size; longer text ends in "…" (the full text is in the tooltip). */
const LINE_CHARS = 30;

/** Builds an SVG element from our own strings only; text is always set as text, never parsed as markup. */
function svg<K extends keyof SVGElementTagNameMap>(tag: K, attrs: Record<string, string | number> = {}, text?: string): SVGElementTagNameMap[K] {
  const node = document.createElementNS(SVG_NS, tag);
  for (const [name, value] of Object.entries(attrs)) node.setAttribute(name, String(value));
  if (text !== undefined) node.textContent = text;
  return node;
}

function fit(text: string): string {
  return text.length > LINE_CHARS ? `${text.slice(0, LINE_CHARS - 1)}…` : text;
}

interface Line {
  readonly text: string;
  readonly kind: 'title' | 'skill' | 'unknown' | 'condition' | 'fallback';
}

function linesOf(step: WorkflowStepView): Line[] {
  const lines: Line[] = [{ text: step.label, kind: 'title' }];
  lines.push({ text: step.skill ? `runs ${step.skill}` : 'runs no skill', kind: 'skill' });
  if (step.unknown) lines.push({ text: '⚠ unknown skill: not installed', kind: 'unknown' });
  if (step.condition) lines.push({ text: `if ${step.condition}`, kind: 'condition' });
  if (step.fallback) lines.push({ text: `on failure → ${step.fallback}`, kind: 'fallback' });
  return lines;
}

/** One sentence per step, for screen readers and for the tooltip. */
function describe(step: WorkflowStepView, predecessors: readonly string[]): string {
  const parts = [`Step ${step.label}`, step.skill ? `runs ${step.skill}${step.unknown ? ' (unknown skill: not installed)' : ''}` : 'runs no skill'];
  if (predecessors.length > 0) parts.push(`after ${predecessors.join(', ')}`);
  if (step.condition) parts.push(`only if ${step.condition}`);
  if (step.fallback) parts.push(`on failure runs ${step.fallback}`);
  return `${parts.join(', ')}.`;
}

/**
 * A Level 1 workflow as a diagram: one box per step, in rows by dependency depth (a step sits below
 * every step it waits for), arrows from each step to the steps that wait for it, dashed arrows into
 * conditional steps, and unknown skills marked in the box and in words. The same content is given
 * as a list for screen readers. Built with DOM APIs only: no step text is ever parsed as markup.
 */
export function renderWorkflowDiagram(steps: readonly WorkflowStepView[]): HTMLElement {
  const figure = el('figure', { class: 'workflow' });
  if (steps.length === 0) {
    figure.append(el('p', { class: 'muted' }, 'The workflow has no steps the preview can draw; the findings say what is wrong with it.'));
    return figure;
  }
  const byId = new Map(steps.map((step) => [step.id, step]));
  const predecessors = new Map<string, string[]>(steps.map((step) => [step.id, []]));
  for (const step of steps) for (const next of step.next) predecessors.get(next)?.push(step.id);

  // Steps arrive in dependency order, so one pass gives each its depth; a cycle's back edges are ignored here.
  const rank = new Map<string, number>();
  for (const step of steps) {
    const depths = (predecessors.get(step.id) ?? []).map((id) => rank.get(id)).filter((depth): depth is number => depth !== undefined);
    rank.set(step.id, depths.length > 0 ? Math.max(...depths) + 1 : 0);
  }
  const rows: WorkflowStepView[][] = [];
  for (const step of steps) (rows[rank.get(step.id)!] ??= []).push(step);

  const widest = Math.max(...rows.map((row) => row.length));
  const width = MARGIN * 2 + widest * NODE_WIDTH + (widest - 1) * GAP_X + 40;
  const boxes = new Map<string, { x: number; y: number; height: number }>();
  let y = MARGIN;
  for (const row of rows) {
    const heights = row.map((step) => PADDING * 2 + LINE_HEIGHT * linesOf(step).length);
    const rowWidth = row.length * NODE_WIDTH + (row.length - 1) * GAP_X;
    let x = (width - 40 - rowWidth) / 2;
    row.forEach((step, index) => {
      boxes.set(step.id, { x, y, height: heights[index]! });
      x += NODE_WIDTH + GAP_X;
    });
    y += Math.max(...heights) + GAP_Y;
  }
  const height = y - GAP_Y + MARGIN;

  const unknown = steps.filter((step) => step.unknown);
  const title = `Workflow diagram: ${steps.length} step${steps.length === 1 ? '' : 's'}${unknown.length > 0 ? `, ${unknown.length} with an unknown skill` : ''}`;
  const root = svg('svg', { class: 'workflow-diagram', role: 'img', 'aria-label': title, width, height, viewBox: `0 0 ${width} ${height}` });
  const defs = svg('defs');
  const marker = svg('marker', { id: 'workflow-arrow', viewBox: '0 0 10 10', refX: 9, refY: 5, markerWidth: 7, markerHeight: 7, orient: 'auto-start-reverse' });
  marker.append(svg('path', { d: 'M0,0 L10,5 L0,10 z', class: 'arrow-head' }));
  defs.append(marker);
  root.append(svg('title', {}, title), defs);

  const edges = svg('g', { class: 'edges' });
  for (const step of steps) {
    const from = boxes.get(step.id)!;
    for (const nextId of step.next) {
      const to = boxes.get(nextId);
      const target = byId.get(nextId);
      if (!to || !target) continue;
      const conditional = target.condition ? ' conditional' : '';
      let d: string;
      if (to.y > from.y) {
        const x1 = from.x + NODE_WIDTH / 2;
        const y1 = from.y + from.height;
        const x2 = to.x + NODE_WIDTH / 2;
        const y2 = to.y - 2;
        const bend = (y2 - y1) / 2;
        d = `M${x1},${y1} C${x1},${y1 + bend} ${x2},${y2 - bend} ${x2},${y2}`;
      } else {
        // A step that waits for a later one (a cycle, which the lint reports): loop round the right side.
        const x1 = from.x + NODE_WIDTH;
        const y1 = from.y + from.height / 2;
        const x2 = to.x + NODE_WIDTH + 2;
        const y2 = to.y + to.height / 2;
        d = `M${x1},${y1} C${x1 + 36},${y1} ${x2 + 36},${y2} ${x2},${y2}`;
      }
      edges.append(svg('path', { d, class: `edge${conditional}${to.y > from.y ? '' : ' back'}`, 'marker-end': 'url(#workflow-arrow)' }));
    }
  }
  root.append(edges);

  for (const step of steps) {
    const box = boxes.get(step.id)!;
    const group = svg('g', { class: `step${step.unknown ? ' unknown' : ''}${step.condition ? ' conditional' : ''}` });
    group.append(svg('title', {}, describe(step, predecessors.get(step.id) ?? [])));
    group.append(svg('rect', { x: box.x, y: box.y, width: NODE_WIDTH, height: box.height, rx: 4, class: 'box' }));
    linesOf(step).forEach((line, index) => {
      group.append(svg('text', { x: box.x + PADDING, y: box.y + PADDING + LINE_HEIGHT * (index + 1) - 4, class: line.kind }, fit(line.text)));
    });
    root.append(group);
  }

  const summary = el('ol', { class: 'sr-only', 'aria-label': 'Workflow steps' });
  for (const step of steps) summary.append(el('li', {}, describe(step, predecessors.get(step.id) ?? [])));
  const scroller = el('div', { class: 'workflow-scroll' });
  scroller.append(root);
  figure.append(scroller, summary);
  if (unknown.length > 0) {
    const names = unknown.map((step) => `${step.label} (${step.skill ?? ''})`).join(', ');
    figure.append(el('p', { class: 'notice warning workflow-unknown', role: 'note' }, `${unknown.length === 1 ? 'This step names a skill' : 'These steps name skills'} that no skill folder has: ${names}.`));
  }
  return figure;
}
