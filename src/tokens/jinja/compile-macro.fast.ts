// Fast path: mirrors @huggingface/jinja 0.5.11's parse and interpreter; 25× faster (docs/fast-paths.md#jinja); guard: test/tokens/jinja-fast-path.test.ts.
import type { AstNode, CallStatementNode, IdentifierNode, KeywordArgumentNode, MacroNode } from './ast-nodes.fast.js';
import { bindable } from './bindable-name.fast.js';
import { compileArguments } from './compile-arguments.fast.js';
import type { Evaluate, Render, StatementCompiler } from './compiled-closures.fast.js';
import { containsNode } from './contains-node.fast.js';
import { Scope } from './scope.fast.js';
import { kindOf, outputText, TemplateFunction, type Kwargs } from './template-values.fast.js';
import { unsupported } from './unsupported-construct-error.fast.js';

interface Parameter {
  name: string;
  fallback: Evaluate | undefined;
}

/** `{% macro name(params) %}body{% endmacro %}`: binds a callable when the statement runs. */
export function compileMacro(node: MacroNode, compile: StatementCompiler): Render {
  refuseArgumentCollectors([node.args, node.body], 'a macro');
  const name = bindable(node.name.value);
  const parameters = compileParameters(node.args, compile);
  const body = compile.block(node.body);
  return (scope) => {
    // Called with the caller's scope: the interpreter's macros scope dynamically.
    scope.assign(
      name,
      new TemplateFunction((args, kwargs, callScope) => {
        const macroScope = new Scope(callScope);
        bindMacroArguments(`'${name}'`, parameters, args, kwargs, macroScope);
        return body(macroScope);
      }, true),
    );
    return '';
  };
}

/** `{% call(params) macro(args) %}body{% endcall %}`: calls a macro with `caller` rendering the body. */
export function compileCallBlock(node: CallStatementNode, compile: StatementCompiler): Render {
  const callerNodes = node.callerArgs ?? [];
  refuseArgumentCollectors([callerNodes, node.body], 'a call block');
  const parameters = compileParameters(callerNodes, compile);
  const body = compile.block(node.body);
  const { positional, keyword } = compileArguments(node.call.args, compile.expression);
  const callee = compile.expression(node.call.callee);
  return (scope) => {
    const caller = new TemplateFunction((args, kwargs) => {
      const callerScope = new Scope(scope);
      bindMacroArguments('None', parameters, args, kwargs, callerScope);
      return body(callerScope);
    }, true);
    const args = positional(scope);
    const kwargs = keyword?.(scope) ?? new Map<string, unknown>();
    const macro = callee(scope);
    if (!(macro instanceof TemplateFunction)) throw new Error(`Cannot call something that is not a function: got ${kindOf(macro)}`);
    if (!macro.isMacro) unsupported('a call block around a builtin function');
    const macroScope = new Scope(scope);
    macroScope.assign('caller', caller);
    return outputText(macro.call(args, kwargs, macroScope));
  };
}

/** `kwargs` and `varargs` inside a macro collect extra arguments, which `bindMacroArguments` does not do. */
function refuseArgumentCollectors(nodes: unknown, construct: string): void {
  if (containsNode(nodes, (child) => child.type === 'Identifier' && ['kwargs', 'varargs'].includes((child as IdentifierNode).value))) {
    unsupported(`${construct} reading kwargs or varargs`);
  }
}

function compileParameters(nodes: AstNode[], compile: StatementCompiler): Parameter[] {
  return nodes.map((node) => {
    if (node.type === 'Identifier') return { name: bindable((node as IdentifierNode).value), fallback: undefined };
    const { key, value } = node as KeywordArgumentNode;
    return { name: bindable(key.value), fallback: compile.expression(value) };
  });
}

/** The interpreter's `bindMacroArguments`, for macros that do not read `kwargs` or `varargs`. */
function bindMacroArguments(displayName: string, parameters: Parameter[], args: unknown[], kwargs: Kwargs, scope: Scope): void {
  const keyword = new Map(kwargs);
  const pending: Parameter[] = [];
  for (let i = 0; i < parameters.length; ++i) {
    const parameter = parameters[i] as Parameter;
    let value: unknown;
    let given = false;
    if (i < args.length) {
      value = args[i];
      given = true;
    } else if (keyword.has(parameter.name)) {
      value = keyword.get(parameter.name);
      keyword.delete(parameter.name);
      given = true;
    }
    if (!given && parameter.fallback) pending.push(parameter);
    scope.assign(parameter.name, value);
  }
  if (keyword.size > 0) throw new Error(`macro ${displayName} takes no keyword argument '${String(keyword.keys().next().value)}'`);
  if (args.length > parameters.length) throw new Error(`macro ${displayName} takes not more than ${parameters.length} argument(s)`);
  // Defaults are evaluated once every parameter is bound, so `b=a * 2` reads the given `a`.
  for (const parameter of pending) scope.assign(parameter.name, (parameter.fallback as Evaluate)(scope));
}
