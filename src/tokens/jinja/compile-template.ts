import { Template } from '@huggingface/jinja';
import type { ProgramNode } from './ast-nodes.js';
import { statementCompiler } from './compile-statements.js';
import { containsNode } from './contains-node.js';
import { GLOBAL_SCOPE } from './template-globals.js';
import { BREAK, CONTINUE } from './loop-control.js';
import type { Scope } from './template-values.js';
import { unsupported } from './unsupported-construct-error.js';

/** Renders a template with its variables: the same text as `Template.render`, or a throw. */
export type CompiledTemplate = (variables: Record<string, unknown>) => string;

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
    return { compiled: (variables) => renderProgram(render, variables) };
  } catch (reason) {
    // An UnsupportedConstructError, or an AST shape this compiler did not expect: the interpreter renders it.
    return { compiled: undefined, reason };
  }
}

function renderProgram(render: (scope: Scope) => string, variables: Record<string, unknown>): string {
  try {
    return render(globalScope(variables));
  } catch (error) {
    if (error === BREAK || error === CONTINUE) unsupported('break or continue outside a loop');
    throw error;
  }
}

function globalScope(variables: Record<string, unknown>): Scope {
  const scope = Object.create(GLOBAL_SCOPE) as Scope;
  for (const key of Object.keys(variables)) {
    // The interpreter refuses to redeclare a global ("Variable already declared").
    if (key in GLOBAL_SCOPE) unsupported(`a render variable named ${key}`);
    scope[key] = variables[key];
  }
  return scope;
}
