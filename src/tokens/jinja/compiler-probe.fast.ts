// Fast path: mirrors @huggingface/jinja 0.5.11's parse and interpreter; 25× faster (docs/fast-paths.md#jinja); guard: test/tokens/jinja-fast-path.test.ts.
import { Template } from '@huggingface/jinja';
import { sayFastPathOff } from '../../util/fast-path-off.js';
import { installedVersion } from '../../util/installed-version.js';
import { once } from '../../util/once.js';
import { tryCompileTemplate } from './compile-template.fast.js';

/**
 * A template of the constructs chat templates use (namespace, macro with a default, loops with
 * `loop`, if/elif, tests, filters with and without arguments, slices, string methods, arithmetic,
 * tojson with an indent), and a conversation with a tool call to render it with.
 */
const PROBE = `{%- set ns = namespace(user=-1) -%}
{%- macro show(call, sep=': ') -%}{{ call.function.name }}{{ sep }}{{ call.function.arguments | tojson }}{%- endmacro -%}
{%- for message in messages -%}
  {%- if message.role == 'user' -%}{%- set ns.user = loop.index0 -%}{%- endif -%}
  <{{ message.role | upper }}>{{ message.content | trim }}
  {%- if message.tool_calls is defined and message.tool_calls -%}
    {%- for call in message.tool_calls %} [{{ show(call) }}]{% endfor -%}
  {%- elif message.role not in ['system', 'user'] %} ({{ message.content | length }}){% endif %}
  {{- '|' if not loop.last else '' -}}
{%- endfor -%}
{{ ns.user ~ '/' ~ (messages | length) }} {{ messages[-1].content[1:4] }} {{ 'a,b,c'.split(',') | join('-') }} {{ (3 * 4 // 5) % 3 }} {{ [1, 2, 3] | last }}
{%- if tools %} {{ tools | tojson(indent=2) }}{% endif %}
{%- if add_generation_prompt %}<ASSISTANT>{% endif %}`;

const PROBE_VARIABLES = {
  messages: [
    { role: 'system', content: ' Be brief. ' },
    { role: 'user', content: 'Weather in Paris?' },
    { role: 'assistant', content: '', tool_calls: [{ id: 'c1', type: 'function', function: { name: 'weather', arguments: { city: 'Paris', days: [1, 2] } } }] },
    { role: 'tool', content: '{"temp": 21.5}' },
  ],
  tools: [{ type: 'function', function: { name: 'weather', parameters: { type: 'object' } } }],
  add_generation_prompt: true,
};

/** The version the compiler was written for, which its guard spec holds it to. */
const WRITTEN_FOR = '0.5.11';

/**
 * Whether the compiler reproduces the interpreter of the @huggingface/jinja installed, decided once
 * per process before any template is compiled: the compiler reads the library's unexported syntax
 * tree and mirrors its interpreter, so another version may parse into other nodes or render other
 * text. The version it was written for is taken on its guard spec's word; any other is tried on a
 * probe template first (about 10 ms of CPU, once). When the probe fails, every template is left to
 * the interpreter, and one line on stderr says so (`sayFastPathOff`).
 */
export const compilerMatchesInterpreter = once((): boolean => {
  if (installedVersion('@huggingface/jinja') === WRITTEN_FOR) return true;
  const reason = compilerProbeMismatch();
  if (reason === undefined) return true;
  sayFastPathOff({
    fastPath: 'chat template compiler',
    library: '@huggingface/jinja',
    writtenFor: WRITTEN_FOR,
    reason,
    slowPath: "the library's interpreter for every template",
  });
  return false;
});

/** How the compiled probe template differs from the interpreter's rendering of it, or undefined when it does not. */
export function compilerProbeMismatch(): string | undefined {
  try {
    const template = new Template(PROBE);
    const compilation = tryCompileTemplate(template);
    if (!compilation.compiled) return `its syntax tree of a probe template is not what the compiler reads (${errorText(compilation.reason)})`;
    return compilation.compiled(PROBE_VARIABLES) === template.render(PROBE_VARIABLES) ? undefined : 'its interpreter renders a probe template otherwise';
  } catch (error) {
    return `a probe template fails (${errorText(error)})`;
  }
}

const errorText = (error: unknown) => (error instanceof Error ? error.message : String(error));
