// Health verdicts (from `gymnast health`, read beside the run) and the first pass's progress, as the
// pages show them. Every finding's text goes through textContent (h), never parsed as markup.

import { h } from './dom.js';
import * as fmt from './format.js';

export const VERDICTS = ['healthy', 'warning', 'unhealthy', 'evaluation-only', 'failed'];
/** Verdicts the overview names only when some rollout has them. */
export const RARE_VERDICTS = ['evaluation-only', 'failed'];
/** What a verdict means where its name alone does not say. */
const VERDICT_NOTES = {
  'evaluation-only': 'sampled by a text-only policy: scored, never trained on',
  failed: 'a failed rollout (in the failures file) with no error found: nothing to train on',
};

/** A verdict's count in the report's summary (`evaluation-only` is counted as `evaluation_only`). */
export const verdictCount = (health, verdict) => health[verdict.replace('-', '_')] ?? 0;
export const NO_REPORT = 'no health report (run gymnast health)';

/** A verdict as a badge; a run with no report (null) gets a muted dash that says why on hover. */
export function healthBadge(verdict) {
  if (verdict === null || verdict === undefined) return h('span', { class: 'health none', title: NO_REPORT }, fmt.dash);
  return h('span', { class: `health ${verdict}`, title: VERDICT_NOTES[verdict] ?? null }, verdict);
}

/** Findings as a list: the check's id, its severity, what it found. */
export function findingsList(findings) {
  if (findings.length === 0) return h('p', { class: 'empty' }, 'No findings.');
  return h(
    'ul',
    { class: 'findings' },
    findings.map((finding) => h('li', { class: finding.severity === 'error' ? 'error' : 'warning' }, h('code', {}, finding.check), ` (${finding.severity}): `, finding.message)),
  );
}

/** While a run's first pass is going: how much of it is read, as a status line and a progress bar. */
export function indexingNote(indexing) {
  if (!indexing || indexing.done) return null;
  const share = indexing.bytes_total > 0 ? indexing.bytes_read / indexing.bytes_total : 0;
  return h(
    'p',
    { class: 'indexing', role: 'status' },
    h('progress', { max: '1', value: String(share) }),
    ` indexing: ${fmt.percent(share)} of ${megabytes(indexing.bytes_total)} read; counts so far, the page follows.`,
  );
}

const megabytes = (bytes) => `${(bytes / 1e6).toFixed(bytes < 1e7 ? 1 : 0)} MB`;
