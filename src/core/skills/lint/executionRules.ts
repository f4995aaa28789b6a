import * as path from 'node:path';
import { isPlainObject } from '../model/skillParser';
import type { LintFinding, TextRange } from '../model/skillTypes';
import { finding } from '../model/lintRules';
import type { ExistenceCheck, RuleInput, RuleOutput } from './ruleInput';
import { blockEnd, findChildKeyLine, keyRange, lineRange, valueRange } from '../model/textRanges';

/** Words in a description that say the value may be left out, which contradicts `required`. */
const OPTIONAL_WORDING =
  /\b(?:optional(?:ly)?|not required|may be (?:empty|omitted|blank|left (?:out|empty|blank)|null)|can be (?:empty|omitted|blank|left (?:out|empty|blank)|skipped|null)|leave (?:it )?(?:blank|empty)|if (?:any|provided|given|present|available))\b/i;

export const EXECUTION_KEYS = ['entry', 'endpoint', 'workflow'] as const;

function frontmatterEnd(input: RuleInput): number {
  return input.parsed.frontmatterEndLine >= 0 ? input.parsed.frontmatterEndLine : input.parsed.bodyStartLine;
}

/** Line of `key:` nested under a top-level key (searched in that key's block), for precise ranges. */
function nestedRange(input: RuleInput, topKey: string, key: string): TextRange {
  const top = input.parsed.keyLines[topKey];
  if (top === undefined) {
    return lineRange(input.lines, input.anchorLine);
  }
  const line = findChildKeyLine(input.lines, top + 1, blockEnd(input.lines, top + 1, frontmatterEnd(input)), key);
  return line === undefined ? keyRange(input.lines, input.parsed.keyLines, topKey) : lineRange(input.lines, line);
}

export function checkExecution(input: RuleInput): RuleOutput {
  const { frontmatter, lines, parsed } = input;
  const findings: LintFinding[] = [];
  const checks: ExistenceCheck[] = [];
  const has = (key: string): boolean => Object.prototype.hasOwnProperty.call(frontmatter, key);

  if (has('input_schema')) {
    findings.push(...checkInputSchema(input));
  }
  if (has('output_schema') && !isPlainObject(frontmatter['output_schema'])) {
    findings.push(finding('SW606', '`output_schema` must be a JSON Schema object (a mapping with `type`, `properties`, …).', valueRange(lines, parsed.keyLines, 'output_schema')));
  }

  const [runKey] = EXECUTION_KEYS.filter(has);
  if (runKey !== undefined && !has('permissions')) {
    findings.push(
      finding(
        'SW603',
        `This skill runs (\`${runKey}\`) but declares no \`permissions\`. Skillwright denies by default, so declare what it needs (files, network, commands) under \`permissions:\`.`,
        keyRange(lines, parsed.keyLines, runKey, input.anchorLine),
      ),
    );
  }

  if (has('entry')) {
    const entry = frontmatter['entry'];
    const where = valueRange(lines, parsed.keyLines, 'entry', input.anchorLine);
    if (typeof entry !== 'string' || entry.trim() === '') {
      findings.push(finding('SW604', '`entry` must name a script in the skill folder, e.g. `entry: scripts/run.py`.', where));
    } else {
      const normalized = path.posix.normalize(entry.trim().replace(/\\/g, '/'));
      if (path.posix.isAbsolute(normalized) || /^[a-z]:/i.test(normalized) || normalized === '..' || normalized.startsWith('../')) {
        findings.push(finding('SW605', `\`entry\` "${entry}" points outside the skill folder; the script must live inside it, e.g. \`scripts/run.py\`.`, where));
      } else {
        checks.push({
          path: normalized,
          onMissing: () => finding('SW604', `The entry script "${entry}" does not exist in this skill folder. Add it, or fix the path.`, where),
        });
      }
    }
  }

  if (has('endpoint')) {
    const endpoint = frontmatter['endpoint'];
    let valid = false;
    if (typeof endpoint === 'string') {
      try {
        const url = new URL(endpoint);
        valid = url.protocol === 'http:' || url.protocol === 'https:';
      } catch {
        valid = false;
      }
    }
    if (!valid) {
      findings.push(finding('SW607', `\`endpoint\` must be an http:// or https:// URL of the service that runs the skill, e.g. \`https://tools.example.com\`.`, valueRange(lines, parsed.keyLines, 'endpoint', input.anchorLine)));
    }
  }
  return { findings, checks };
}

function checkInputSchema(input: RuleInput): LintFinding[] {
  const { frontmatter, lines, parsed } = input;
  const schema = frontmatter['input_schema'];
  const schemaRange = keyRange(lines, parsed.keyLines, 'input_schema', input.anchorLine);
  if (!isPlainObject(schema)) {
    return [finding('SW606', '`input_schema` must be a JSON Schema object: `type: object` with `properties:` (one entry per parameter) and optionally `required:`.', schemaRange)];
  }
  const findings: LintFinding[] = [];
  const properties = schema['properties'];
  if (properties !== undefined && !isPlainObject(properties)) {
    findings.push(finding('SW606', '`input_schema.properties` must be a mapping from parameter name to its schema.', nestedRange(input, 'input_schema', 'properties')));
    return findings;
  }
  const props = isPlainObject(properties) ? properties : {};
  const required = schema['required'];
  if (required !== undefined && !(Array.isArray(required) && required.every((item) => typeof item === 'string'))) {
    findings.push(finding('SW606', '`input_schema.required` must be a list of parameter names.', nestedRange(input, 'input_schema', 'required')));
  }
  const requiredNames = Array.isArray(required) ? required.filter((item): item is string => typeof item === 'string') : [];
  for (const name of requiredNames) {
    if (!Object.prototype.hasOwnProperty.call(props, name)) {
      findings.push(finding('SW606', `\`input_schema.required\` lists "${name}", but \`properties\` has no such parameter. Add it to properties or remove it from required.`, nestedRange(input, 'input_schema', 'required')));
    }
  }

  const names = Object.keys(props);
  const describedBy = (name: string): string | undefined => {
    const prop = props[name];
    const description = isPlainObject(prop) ? prop['description'] : undefined;
    return typeof description === 'string' && description.trim() !== '' ? description : undefined;
  };
  const undocumented = names.filter((name) => describedBy(name) === undefined);
  if (names.length > 0 && undocumented.length * 2 > names.length) {
    findings.push(
      finding(
        'SW601',
        `${undocumented.length} of ${names.length} input parameters have no description (${undocumented.slice(0, 5).join(', ')}${undocumented.length > 5 ? ', …' : ''}). The model fills arguments from these descriptions: add a \`description\` to each.`,
        nestedRange(input, 'input_schema', 'properties'),
      ),
    );
  }
  for (const name of requiredNames) {
    const description = describedBy(name);
    const wording = description === undefined ? undefined : OPTIONAL_WORDING.exec(description);
    if (wording) {
      findings.push(
        finding(
          'SW602',
          `"${name}" is required, but its description says "${wording[0]}". Remove it from \`required\` (and give it a default), or reword the description.`,
          nestedRange(input, 'input_schema', name),
        ),
      );
    }
  }
  return findings;
}
