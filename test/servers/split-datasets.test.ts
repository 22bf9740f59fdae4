import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { delimiter, join } from 'node:path';
import { describe, it } from 'node:test';
import { ConfigFileError } from '../../src/core/errors/config-file-error.js';
import { InvalidRowError } from '../../src/core/errors/invalid-row-error.js';
import { loadServerConfig } from '../../src/servers/config/server-config.js';
import { collateDataset, collatedRows, splitDatasets } from '../../src/servers/config/split-datasets.js';

const dir = mkdtempSync(join(tmpdir(), 'gymnast-split-datasets-'));
const write = (name: string, text: string) => {
  writeFileSync(join(dir, name), text);
  return join(dir, name);
};

write(
  'math-train.jsonl',
  '{"responses_create_params":{"input":"1+1"},"agent_ref":{"type":"responses_api_agents","name":"someone_else"}}\n\n{"responses_create_params":{"input":"2+2"}}\n',
);
write('counter-train.jsonl', '{"responses_create_params":{"input":"count"},"initial_count":1}\n');
write('math-example.jsonl', '{"responses_create_params":{"input":"3+3"}}\n');
write('bad.jsonl', '{"responses_create_params":{}}\n[1]\n');
const config = loadServerConfig(
  write(
    'config.yaml',
    `
math:
  resources_servers: {math: {}}
counter:
  resources_servers: {example_session_state_mgmt: {}}
m:
  responses_api_models: {gymnast_embedded: {}}
math_agent:
  responses_api_agents:
    simple_agent:
      resources_server: {type: resources_servers, name: math}
      model_server: {type: responses_api_models, name: m}
      datasets:
      - {name: train, type: train, jsonl_fpath: math-train.jsonl, license: MIT, num_repeats: 2}
      - {name: example, type: example, jsonl_fpath: math-example.jsonl}
counter_agent:
  responses_api_agents:
    simple_agent:
      resources_server: {type: resources_servers, name: counter}
      model_server: {type: responses_api_models, name: m}
      datasets:
      - {name: counter_train, type: train, jsonl_fpath: ${join(dir, 'counter-train.jsonl')}, license: MIT}
      - {name: broken, type: validation, jsonl_fpath: bad.jsonl, license: MIT}
      - {name: gone, type: benchmark, jsonl_fpath: nowhere.jsonl}
`,
  ),
);

describe("a split's datasets, collated with agent_ref stamped (NeMo Gym's e2e data preparation)", () => {
  it('lists every dataset of the split across agents, in config order, relative paths resolved against the working directory', () => {
    const train = splitDatasets(config, 'train', { cwd: dir });
    assert.deepEqual(
      train.map((entry) => [entry.agent, entry.dataset.name, entry.dataset.num_repeats, entry.path, entry.yamlPath]),
      [
        ['math_agent', 'train', 2, join(dir, 'math-train.jsonl'), 'math_agent.responses_api_agents.simple_agent.datasets.0'],
        ['counter_agent', 'counter_train', undefined, join(dir, 'counter-train.jsonl'), 'counter_agent.responses_api_agents.simple_agent.datasets.0'],
      ],
    );
  });

  it("stamps each row's agent_ref with its agent, over what the row had", async () => {
    const [math] = splitDatasets(config, 'train', { cwd: dir });
    const rows = [];
    for await (const row of collatedRows(math!)) rows.push(row);
    assert.deepEqual(rows, [
      { responses_create_params: { input: '1+1' }, agent_ref: { type: 'responses_api_agents', name: 'math_agent' } },
      { responses_create_params: { input: '2+2' }, agent_ref: { type: 'responses_api_agents', name: 'math_agent' } },
    ]);
  });

  it('writes one output per dataset', async () => {
    const [, counter] = splitDatasets(config, 'train', { cwd: dir });
    const output = join(dir, 'counter-out.jsonl');
    assert.equal(await collateDataset(counter!, output), 1);
    assert.deepEqual(JSON.parse(readFileSync(output, 'utf8')), {
      responses_create_params: { input: 'count' },
      initial_count: 1,
      agent_ref: { type: 'responses_api_agents', name: 'counter_agent' },
    });
  });

  it('names file and line of a row that is not an object', async () => {
    const [broken] = splitDatasets(config, 'validation', { cwd: dir });
    await assert.rejects(
      collateDataset(broken!, join(dir, 'broken-out.jsonl')),
      (error: unknown) => error instanceof InvalidRowError && error.message === `${join(dir, 'bad.jsonl')}:2: expected a JSON object`,
    );
  });

  it('refuses a missing file, and a split no agent has, naming the YAML path', () => {
    assert.throws(
      () => splitDatasets(config, 'benchmark', { cwd: dir }),
      (error: unknown) =>
        error instanceof ConfigFileError &&
        error.message ===
          `${config.file}: counter_agent.responses_api_agents.simple_agent.datasets.2.jsonl_fpath: an existing JSONL file: a relative path is found under the working directory (${dir}), as NeMo Gym finds it, and ${join(dir, 'nowhere.jsonl')} is not there`,
    );
    const onlyExamples = loadServerConfig(
      write(
        'examples-only.yaml',
        'a:\n  responses_api_agents:\n    simple_agent:\n      datasets: [{name: e, type: example, jsonl_fpath: math-example.jsonl}]\n',
      ),
    );
    assert.throws(
      () => splitDatasets(onlyExamples, 'train', { cwd: dir }),
      /examples-only\.yaml: \(top level\): an agent with a train dataset; the config's datasets are example$/,
    );
  });

  it('finds a relative jsonl_fpath as NeMo Gym does: under NEMO_GYM_EXTRA_ROOTS first, then the working directory, never beside the config', () => {
    const elsewhere = mkdtempSync(join(tmpdir(), 'gymnast-split-cwd-'));
    const [math] = splitDatasets(config, 'train', { cwd: elsewhere, env: { NEMO_GYM_EXTRA_ROOTS: `${join(elsewhere, 'none')}${delimiter}${dir}` } });
    assert.equal(math!.path, join(dir, 'math-train.jsonl'), 'the first extra root that has it');
    assert.throws(
      () => splitDatasets(config, 'train', { cwd: elsewhere, env: {} }),
      (error: unknown) =>
        error instanceof ConfigFileError &&
        error.message ===
          `${config.file}: math_agent.responses_api_agents.simple_agent.datasets.0.jsonl_fpath: an existing JSONL file: a relative path is found under the working directory (${elsewhere}), as NeMo Gym finds it, and ${join(elsewhere, 'math-train.jsonl')} is not there; it is there from the config's folder: run from ${dir}, or name the file from the working directory`,
    );
  });
});
