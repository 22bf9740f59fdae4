import assert from 'node:assert/strict';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { DatasetRow } from '../../src/collect/dataset-row.js';
import { applyPrompt, fillTemplate, hasPrompt, loadPromptConfig } from '../../src/collect/prompt-config.js';

describe("NeMo Gym's prompt config", () => {
  it('fills {field} from top-level row fields, with {{ and }} as literal braces', () => {
    assert.equal(fillTemplate('Put the answer in \\boxed{{}}.\n\n{question}', { question: 'What is 2+2?' }), 'Put the answer in \\boxed{}.\n\nWhat is 2+2?');
  });

  it("names the missing field and lists the row's fields", () => {
    assert.throws(
      () => fillTemplate('{problem}', { question: 'q', expected_answer: '4' }),
      /uses \{problem\}, but the row has only: question, expected_answer/,
    );
  });

  it('builds system and user messages and keeps the other request fields', () => {
    const row = DatasetRow.parse({ question: 'q', responses_create_params: { temperature: 0.2 } });
    const applied = applyPrompt(row, { system: 'Be brief.', user: 'Q: {question}' });
    assert.deepEqual(applied.responses_create_params, {
      temperature: 0.2,
      input: [
        { role: 'system', content: 'Be brief.' },
        { role: 'user', content: 'Q: q' },
      ],
    });
    assert.equal(row.responses_create_params?.input, undefined, 'the original row is not changed');
  });

  it('tells rows that already have a prompt (which a prompt config must not overwrite) from rows without one', () => {
    const rows = [
      { line: 1, row: DatasetRow.parse({ question: 'a' }) },
      { line: 2, row: DatasetRow.parse({ responses_create_params: { input: 'hi' } }) },
      { line: 3, row: DatasetRow.parse({ responses_create_params: { input: [{ role: 'user', content: 'x' }] } }) },
    ];
    assert.deepEqual(
      rows.filter(({ row }) => hasPrompt(row)).map(({ line }) => line),
      [2, 3],
    );
  });

  it('loads YAML with a required user template and rejects unknown keys', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'gymnast-prompt-'));
    writeFileSync(join(dir, 'ok.yaml'), 'system: Be brief.\nuser: "{question}"\n');
    writeFileSync(join(dir, 'bad.yaml'), 'assistant: nope\n');
    assert.deepEqual(await loadPromptConfig(join(dir, 'ok.yaml')), { system: 'Be brief.', user: '{question}' });
    await assert.rejects(loadPromptConfig(join(dir, 'bad.yaml')), /bad\.yaml: user: .*|bad\.yaml: \(file\): /);
  });
});
