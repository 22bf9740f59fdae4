// A rollout's messages as a conversation: roles, content, reasoning, tool calls and tool results.

import { h } from './dom.js';

function pretty(json) {
  try {
    return JSON.stringify(JSON.parse(json), null, 2);
  } catch {
    return json;
  }
}

function contentText(content) {
  if (typeof content === 'string') return content;
  if (Array.isArray(content)) return content.map((part) => (typeof part?.text === 'string' ? part.text : JSON.stringify(part))).join('');
  return content === null || content === undefined ? '' : JSON.stringify(content, null, 2);
}

export function message(msg, index) {
  const tokens = msg.token_ids?.length;
  return h(
    'article',
    { class: `msg role-${msg.role}`, 'aria-label': `message ${index}, ${msg.role}` },
    h('header', {}, h('span', { class: 'role' }, msg.role), msg.tool_call_id ? h('span', { class: 'call-id' }, `answers ${msg.tool_call_id}`) : null, tokens !== undefined ? h('span', { class: 'meta' }, `${tokens} tokens`) : null),
    msg.reasoning_content ? h('details', { class: 'reasoning' }, h('summary', {}, 'reasoning'), h('pre', {}, msg.reasoning_content)) : null,
    contentText(msg.content) !== '' ? h('pre', { class: 'content' }, contentText(msg.content)) : null,
    (msg.tool_calls ?? []).map((call) =>
      h('div', { class: 'tool-call' }, h('span', { class: 'label' }, 'calls '), h('code', {}, call.function?.name ?? '?'), call.id ? h('span', { class: 'call-id' }, ` (${call.id})`) : null, h('pre', {}, pretty(call.function?.arguments ?? ''))),
    ),
  );
}

export function conversation(messages) {
  return h('div', { class: 'conversation' }, (messages ?? []).map(message));
}
