import { fileWriter, ParquetWriter } from 'hyparquet-writer';
import type { ResultRow } from '../core/result-row.js';
import { isZeroTurnRow } from '../core/zero-turn-row.js';
import { type DriftPolicy, type ExportCounts, nemoRlRecord } from './export-nemo-rl.js';
import { rewardComponentNames, rolloutSummary, successRows } from './rollout-summary.js';

type SchemaElement = ConstructorParameters<typeof ParquetWriter>[0]['schema'][number];
type PrimitiveType = NonNullable<SchemaElement['type']>;
type Cell = string | number | boolean | number[] | null;

/**
 * A rollout's token sequence, NeMo RL's message log concatenated and cut at the first generated
 * token: `prompt_token_ids` before it; the generation after it, with the tools' and environment's
 * tokens between turns kept in place and told apart by `generation_loss_mask` (1 where sampled),
 * `generation_logprobs` 0 where not sampled. A zero-turn row is all prompt.
 */
export interface TokenColumns {
  prompt_token_ids: number[];
  generation_token_ids: number[];
  generation_logprobs: number[];
  generation_loss_mask: number[];
  loss_multiplier: number;
}

export function tokenColumns(row: ResultRow, where: string, onDrift: Exclude<DriftPolicy, 'drop'>): TokenColumns {
  const record = nemoRlRecord(row, where, onDrift);
  const first = record.message_log.findIndex((message) => message.token_loss_mask.includes(1));
  const cut = first === -1 ? record.message_log.length : first;
  const prompt = record.message_log.slice(0, cut);
  const generation = record.message_log.slice(cut);
  return {
    prompt_token_ids: prompt.flatMap((message) => message.token_ids),
    generation_token_ids: generation.flatMap((message) => message.token_ids),
    generation_logprobs: generation.flatMap((message) => message.generation_logprobs),
    generation_loss_mask: generation.flatMap((message) => message.token_loss_mask),
    loss_multiplier: record.loss_multiplier,
  };
}

interface Column {
  name: string;
  /** A list column's element type; the column itself is Parquet's three-level LIST, as Arrow, pandas and `datasets` read lists. */
  list?: true;
  type: PrimitiveType;
  utf8?: true;
  nullable?: true;
}

const string = (name: string, nullable?: true): Column => ({ name, type: 'BYTE_ARRAY', utf8: true, ...(nullable ? { nullable } : {}) });

/** The columns of a file whose rows have these reward components (one `reward_<name>` column each). */
export function parquetColumns(components: readonly string[]): Column[] {
  return [
    { name: '_ng_task_index', type: 'INT32' },
    { name: '_ng_rollout_index', type: 'INT32' },
    string('agent'),
    string('termination', true),
    { name: 'reward', type: 'DOUBLE' },
    ...components.map((name): Column => ({ name: `reward_${name}`, type: 'DOUBLE', nullable: true })),
    { name: 'num_turns', type: 'INT32', nullable: true },
    { name: 'truncated', type: 'BOOLEAN' },
    string('extracted_answer', true),
    { name: 'token_drift_count', type: 'INT32' },
    { name: 'duration_ms', type: 'DOUBLE', nullable: true },
    // Null on evaluation-only rows: their policy returned text without token ids.
    { name: 'loss_multiplier', type: 'INT32', nullable: true },
    { name: 'prompt_token_ids', list: true, type: 'INT32', nullable: true },
    { name: 'generation_token_ids', list: true, type: 'INT32', nullable: true },
    { name: 'generation_logprobs', list: true, type: 'DOUBLE', nullable: true },
    { name: 'generation_loss_mask', list: true, type: 'INT32', nullable: true },
  ];
}

function schemaOf(columns: readonly Column[]): SchemaElement[] {
  const elements: SchemaElement[] = [{ name: 'schema', num_children: columns.length }];
  for (const column of columns) {
    const leaf = { type: column.type, ...(column.utf8 ? { converted_type: 'UTF8' as const } : {}) };
    const repetition = column.nullable ? ('OPTIONAL' as const) : ('REQUIRED' as const);
    if (!column.list) elements.push({ name: column.name, repetition_type: repetition, ...leaf });
    else
      elements.push(
        { name: column.name, repetition_type: repetition, converted_type: 'LIST', num_children: 1 },
        { name: 'list', repetition_type: 'REPEATED', num_children: 1 },
        { name: 'element', repetition_type: 'REQUIRED', ...leaf },
      );
  }
  return elements;
}

/** Rows per row group: a few MB of token ids, so a reader need not hold the whole file. */
const ROW_GROUP = 1000;

export interface ParquetExportCounts extends ExportCounts {
  /** Written with null token columns: their policy returned no token ids. */
  evaluationOnly: number;
}

/**
 * Every success of a rollouts file as one Parquet row (keys, agent, termination, rewards, turns, the
 * token sequence as list columns), in the layout pandas and Hugging Face `datasets` load directly;
 * drifted rows as `onDrift` says, as `export --format nemo-rl` does.
 */
export async function exportParquet(
  input: string,
  output: string,
  options: { onDrift?: DriftPolicy; signal?: AbortSignal } = {},
): Promise<ParquetExportCounts> {
  const { onDrift = 'mask', signal } = options;
  const components = await rewardComponentNames(input, signal);
  const columns = parquetColumns(components);
  const counts: ParquetExportCounts = { written: 0, masked: 0, zeroTurn: 0, drifted: 0, evaluationOnly: 0 };
  const writer = new ParquetWriter({ writer: fileWriter(output), schema: schemaOf(columns), createdBy: 'gymnast' });
  let batch: Record<string, Cell>[] = [];
  const flush = async () => {
    if (batch.length === 0) return;
    const rows = batch;
    batch = [];
    await writer.write({
      columnData: columns.map((column) => ({ name: column.name, data: rows.map((row) => row[column.name] ?? null) })),
      rowGroupSize: rows.length,
    });
  };
  for await (const { row, where } of successRows(input, signal)) {
    const drifted = (row.token_drift_count ?? 0) > 0;
    if (drifted) counts.drifted += 1;
    if (drifted && onDrift === 'drop') continue;
    const summary = rolloutSummary(row);
    const tokens = row.evaluation_only ? undefined : tokenColumns(row, where, onDrift === 'keep' ? 'keep' : 'mask');
    counts.written += 1;
    if (tokens === undefined) counts.evaluationOnly += 1;
    else if (tokens.loss_multiplier === 0) counts.masked += 1;
    if (isZeroTurnRow(row)) counts.zeroTurn += 1;
    const { reward_components, ...flat } = summary;
    batch.push({
      ...flat,
      ...Object.fromEntries(components.map((name) => [`reward_${name}`, reward_components[name] ?? null])),
      ...(tokens ?? {}),
    });
    if (batch.length >= ROW_GROUP) await flush();
  }
  await flush();
  await writer.finish();
  return counts;
}
