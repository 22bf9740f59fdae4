// Fast path: mirrors @huggingface/jinja 0.5.11's parse and interpreter; 25× faster (docs/fast-paths.md#jinja); guard: test/tokens/jinja-fast-path.test.ts.
import { Template } from '@huggingface/jinja';
import type { ProgramNode } from './ast-nodes.fast.js';
import { statementCompiler } from './compile-statements.fast.js';
import { containsNode } from './contains-node.fast.js';
import { GLOBAL_SCOPE } from './template-globals.fast.js';
import { BREAK, CONTINUE } from './loop-control.fast.js';
import { Scope } from './scope.fast.js';
import { unsupported } from './unsupported-construct-error.fast.js';

/** Renders a template with its variables: the same text as `Template.render`, or a throw. */
export interface CompiledTemplate {
  (variables: Record<string, unknown>): string;
  /**
   * The template with the variables every render shares (special tokens, default kwargs) put in a
   * scope of their own once: each render then brings only its own variables, which hide shared ones
   * of the same name, as a later key of one variables object would.
   */
  withShared(shared: Record<string, unknown>): (variables: Record<string, unknown>) => string;
}

/** A compiled template, or why the template is left to the interpreter (the error compiling it threw). */
export type TemplateCompilation = { compiled: CompiledTemplate } | { compiled: undefined; reason: unknown };

/**
 * Compiles a template's AST (parsed by @huggingface/jinja itself, so parsing is identical) into JS
 * closures over plain values, reproducing the interpreter's semantics without its RuntimeValue
 * wrappers. Returns undefined when the template uses a construct the compiler does not reproduce;
 * a render may still throw `UnsupportedConstructError` for a value it does not reproduce. Either
 * way the caller renders with the interpreter instead.
 */
export function compileTemplate(template: string | Template): CompiledTemplate | undefined {
  return tryCompileTemplate(template).compiled;
}

/** `compileTemplate`, keeping the reason a template is not compiled so callers can report it. */
export function tryCompileTemplate(template: string | Template): TemplateCompilation {
  const program = (typeof template === 'string' ? new Template(template) : template).parsed as ProgramNode;
  try {
    const hasLoopControl = containsNode(program, (node) => node.type === 'Break' || node.type === 'Continue');
    const render = statementCompiler(hasLoopControl).block(program.body);
    const withShared = (shared: Record<string, unknown>) => {
      let sharedScope: Scope;
      try {
        sharedScope = scopeOf(shared, GLOBAL_SCOPE);
      } catch (error) {
        // A shared variable named as a global: every render fails as the interpreter's would.
        return () => {
          throw error;
        };
      }
      return (variables: Record<string, unknown>) => renderProgram(render, scopeOf(variables, sharedScope));
    };
    return { compiled: Object.assign(withShared({}), { withShared }) };
  } catch (reason) {
    // An UnsupportedConstructError, or an AST shape this compiler did not expect: the interpreter renders it.
    return { compiled: undefined, reason };
  }
}

function renderProgram(render: (scope: Scope) => string, scope: Scope): string {
  try {
    return render(scope);
  } catch (error) {
    if (error === BREAK || error === CONTINUE) unsupported('break or continue outside a loop');
    throw error;
  }
}

/** A scope of the render's variables inside `enclosing`. */
function scopeOf(variables: Record<string, unknown>, enclosing: Scope): Scope {
  const scope = new Scope(enclosing);
  for (const key of Object.keys(variables)) {
    // The interpreter refuses to redeclare a global ("Variable already declared").
    if (GLOBAL_SCOPE.has(key)) unsupported(`a render variable named ${key}`);
    scope.assign(key, variables[key]);
  }
  return scope;
}
