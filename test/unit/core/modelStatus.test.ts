import * as assert from 'node:assert/strict';
import { describeModelSettings } from '../../../src/core/llm/modelStatus';
import { MODEL_PRESETS, presetForBaseUrl } from '../../../src/providers/modelPresets';

describe('describeModelSettings', () => {
  it('explains how to configure when nothing is set', () => {
    const status = describeModelSettings({ baseUrl: '', model: '' });
    assert.equal(status.configured, false);
    assert.match(status.advice, /No model is configured.*Base Url.*Name/);
  });

  it('asks for the missing half', () => {
    assert.match(describeModelSettings({ baseUrl: '', model: 'gpt' }).advice, /Base Url/);
    assert.match(describeModelSettings({ baseUrl: 'http://localhost:11434/v1', model: ' ' }).advice, /Model: Name/);
  });

  it('rejects values that are not http(s) URLs', () => {
    assert.match(describeModelSettings({ baseUrl: 'localhost:11434', model: 'm' }).advice, /must start with http/);
    assert.match(describeModelSettings({ baseUrl: 'not a url', model: 'm' }).advice, /is not a URL/);
  });

  it('summarises a complete configuration', () => {
    const status = describeModelSettings({ baseUrl: ' http://localhost:11434/v1/ ', model: 'llama3.1' }, 'Ollama (local)');
    assert.equal(status.configured, true);
    assert.equal(status.provider, 'Ollama (local)');
    assert.equal(status.advice, 'Using llama3.1 at http://localhost:11434/v1.');
  });
});

describe('model presets', () => {
  it('recognises the preset of a base URL', () => {
    assert.equal(presetForBaseUrl('http://localhost:11434/v1')?.id, 'ollama');
    assert.equal(presetForBaseUrl('https://api.openai.com/v1')?.id, 'openai');
    assert.equal(presetForBaseUrl('https://team.openai.azure.com/openai')?.id, 'azure');
    assert.equal(presetForBaseUrl('http://10.0.0.5:8000/v1'), undefined);
    assert.equal(presetForBaseUrl('garbage'), undefined);
  });

  it('offers the presets people expect', () => {
    assert.deepEqual(
      MODEL_PRESETS.map((p) => p.id),
      ['openai', 'azure', 'openrouter', 'ollama', 'lmstudio', 'custom'],
    );
  });
});
