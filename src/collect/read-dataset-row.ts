import { parseWithIssues, type SchemaIssue } from '../core/schema-issues.js';
import { DatasetRow } from './dataset-row.js';
import { plainDatasetRow } from './plain-dataset-row.fast.js';

/** A parsed input line read as `DatasetRow`: by hand when it has the common plain shape, else by the schema, which words the problem. */
export function readDatasetRow(value: unknown): { data: DatasetRow } | { issues: SchemaIssue[] } {
  const plain = plainDatasetRow(value);
  return plain ? { data: plain } : parseWithIssues(DatasetRow, value);
}
