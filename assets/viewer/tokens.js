// The token view: the whole sequence, one span per token. Trained tokens (sampled by the policy,
// under the loss mask) are coloured by the probability the sampler gave them, exp(logprob), on a
// red (unlikely) → green (certain) scale; prompt and observation tokens are grey and not trained.
// Hovering a token shows its id, text and logprob; drift points are outlined and flagged.

import { h } from './dom.js';

const FIRST_CHUNK = 20_000;

/** The background colour of a trained token with this logprob (null: no logprob recorded). */
export function logprobColour(logprob) {
  if (logprob === null || logprob === undefined) return 'hsl(220 15% 85%)';
  const p = Math.exp(Math.min(0, logprob));
  return `hsl(${Math.round(p * 120)} 75% 78%)`;
}

function visible(text) {
  return text.replace(/\n/g, '↵\n').replace(/\t/g, '⇥');
}

function describe(token, index, drift) {
  // drift: undefined, or what drifted there (a sentence).
  const parts = [`#${index} id ${token.id}`, token.text === null ? 'text unknown' : `text ${JSON.stringify(token.text)}`];
  if (token.logprob !== null && token.logprob !== undefined) parts.push(`logprob ${token.logprob.toFixed(4)} (p ${Math.exp(token.logprob).toFixed(3)})`);
  parts.push(token.trained ? 'trained' : `not trained (${token.role})`, `message ${token.message}`);
  if (drift) parts.push(drift);
  return parts.join(' · ');
}

function span(token, index, drift) {
  const classes = ['tok', token.trained ? 'trained' : 'context', `role-${token.role}`];
  if (drift) classes.push('drift');
  return h(
    'span',
    {
      class: classes.join(' '),
      title: describe(token, index, drift),
      id: drift ? `tok-${index}` : null,
      dataset: { index: String(index), id: String(token.id), logprob: token.logprob ?? '' },
      style: token.trained ? { 'background-color': logprobColour(token.logprob) } : null,
    },
    token.text === null ? `⟨${token.id}⟩` : visible(token.text),
  );
}

/**
 * tokens: [{id, text, logprob, trained, message, role}]; drift: Map of token index → what drifted
 * there (see driftMarks) → the view.
 */
export function tokenView(tokens, drift = new Map()) {
  const trained = tokens.filter((t) => t.trained).length;
  const body = h('div', { class: 'tokens', role: 'group', 'aria-label': `token sequence, ${tokens.length} tokens` });
  const render = (from, to) => {
    const fragment = document.createDocumentFragment();
    for (let i = from; i < to; i++) fragment.append(span(tokens[i], i, drift.get(i)));
    return fragment;
  };
  body.append(render(0, Math.min(tokens.length, FIRST_CHUNK)));
  if (tokens.length > FIRST_CHUNK) {
    const more = h('button', { type: 'button', class: 'more' }, `Show the other ${tokens.length - FIRST_CHUNK} tokens`);
    more.addEventListener('click', () => more.replaceWith(render(FIRST_CHUNK, tokens.length)));
    body.append(more);
  }
  return h(
    'div',
    { class: 'token-view' },
    h(
      'div',
      { class: 'legend' },
      h('span', {}, `${tokens.length} tokens, ${trained} trained`),
      h('span', { class: 'tok context' }, 'prompt / observation (not trained)'),
      h('span', { class: 'scale' }, h('span', {}, 'trained, p = exp(logprob): '), h('span', { class: 'tok trained', style: { 'background-color': logprobColour(Math.log(0.05)) } }, '0.05'), h('span', { class: 'tok trained', style: { 'background-color': logprobColour(Math.log(0.5)) } }, '0.5'), h('span', { class: 'tok trained', style: { 'background-color': logprobColour(0) } }, '1')),
      drift.size > 0 ? h('span', {}, h('span', { class: 'tok drift' }, 'drift'), ` ${drift.size} ${drift.size === 1 ? 'point' : 'points'}: `, [...drift.keys()].sort((a, b) => a - b).slice(0, 20).map((i) => h('button', { type: 'button', class: 'drift-link', onclick: (event) => jump(event, i) }, String(i)))) : null,
    ),
    body,
  );
}

function jump(event, index) {
  event.preventDefault();
  const target = document.getElementById(`tok-${index}`);
  target?.scrollIntoView({ block: 'center' });
  target?.classList.add('flash');
  setTimeout(() => target?.classList.remove('flash'), 1200);
}

/**
 * Where each drifted turn's drift falls in the token sequence. The API gives drift points as turn
 * indices; a turn's `token_drift.at` counts tokens (`server`) or characters of the decoded sequence
 * (`template`). Without token texts a template drift is placed at the start of that turn's sampled
 * tokens, and says so.
 */
export function driftMarks(turns, tokens, driftTurns) {
  const marks = new Map();
  if (tokens.length === 0) return marks;
  const sampledStarts = [];
  tokens.forEach((token, i) => {
    if (token.trained && (i === 0 || tokens[i - 1].message !== token.message)) sampledStarts.push(i);
  });
  for (const index of driftTurns) {
    const turn = (turns ?? []).find((one) => one.index === index) ?? turns?.[index];
    const drift = turn?.token_drift;
    let at;
    let exact = false;
    if (drift?.source === 'server' && Number.isInteger(drift.at)) {
      at = drift.at;
      exact = true;
    } else if (drift?.source === 'template' && Number.isInteger(drift.at) && tokens.every((token) => token.text !== null)) {
      let end = 0;
      at = tokens.findIndex((token) => (end += token.text.length) > drift.at);
      exact = at !== -1;
    }
    if (!exact) at = sampledStarts[index] ?? sampledStarts[sampledStarts.length - 1] ?? 0;
    at = Math.max(0, Math.min(tokens.length - 1, at));
    const what = drift ? `: the sequence has ${JSON.stringify(drift.ledger)}, the ${drift.source === 'server' ? 'server' : 'chat template'} ${JSON.stringify(drift.template)}` : '';
    marks.set(at, `${marks.has(at) ? `${marks.get(at)}; ` : ''}token drift in turn ${index}${exact ? '' : ' (near here)'}${what}`);
  }
  return marks;
}
