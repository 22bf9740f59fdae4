import { Template } from '@huggingface/jinja';
import type {
  AstNode,
  BinaryExpressionNode,
  CallExpressionNode,
  CallStatementNode,
  FilterExpressionNode,
  FilterStatementNode,
  ForNode,
  IdentifierNode,
  IfNode,
  KeywordArgumentNode,
  LiteralNode,
  MacroNode,
  MemberExpressionNode,
  ProgramNode,
  SelectExpressionNode,
  SetNode,
  SliceExpressionNode,
  SpreadNode,
  TernaryNode,
  TestExpressionNode,
  UnaryExpressionNode,
} from './ast-nodes.js';
import { applyCallFilter, applyFilter } from './filters.js';
import { callMethod, callValue, getMember } from './members.js';
import { binaryOperation, unaryOperation } from './operators.js';
import { GLOBAL_SCOPE } from './template-globals.js';
import { display, hasOwn, isArrayKind, kindOf, looseEquals, makeFloat, makeTuple, Namespace, TemplateFunction, truthy, type Kwargs, type Scope } from './template-values.js';
import { unsupported } from './unsupported-construct-error.js';
import { VALUE_TESTS } from './value-tests.js';

/** Renders a template with its variables: the same text as `Template.render`, or a throw. */
export type CompiledTemplate = (variables: Record<string, unknown>) => string;

type Evaluate = (scope: Scope) => unknown;
type Render = (scope: Scope) => string;

/**
 * Compiles a template's AST (parsed by @huggingface/jinja itself, so parsing is identical) into JS
 * closures over plain values, reproducing the interpreter's semantics without its RuntimeValue
 * wrappers. Returns undefined when the template uses a construct the compiler does not reproduce;
 * a render may still throw `UnsupportedConstructError` for a value it does not reproduce. Either
 * way the caller renders with the interpreter instead.
 */
export function compileTemplate(template: string | Template): CompiledTemplate | undefined {
  const program = (typeof template === 'string' ? new Template(template) : template).parsed as ProgramNode;
  try {
    const render = new Compiler(containsNode(program, (node) => node.type === 'Break' || node.type === 'Continue')).block(program.body);
    return (variables) => {
      try {
        return render(globalScope(variables));
      } catch (error) {
        if (error === BREAK || error === CONTINUE) unsupported('break or continue outside a loop');
        throw error;
      }
    };
  } catch {
    // An UnsupportedConstructError, or an AST shape this compiler did not expect: the interpreter renders it.
    return undefined;
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

const BREAK = { control: 'break' };
const CONTINUE = { control: 'continue' };

/** The interpreter's `loop` mapping, in its key order. */
class LoopInfo {
  readonly index: number;
  readonly index0: number;
  readonly revindex: number;
  readonly revindex0: number;
  readonly first: boolean;
  readonly last: boolean;
  readonly length: number;
  readonly previtem: unknown;
  readonly nextitem: unknown;

  constructor(i: number, items: unknown[]) {
    const length = items.length;
    this.index = i + 1;
    this.index0 = i;
    this.revindex = length - i;
    this.revindex0 = length - i - 1;
    this.first = i === 0;
    this.last = i === length - 1;
    this.length = length;
    this.previtem = i > 0 ? items[i - 1] : undefined;
    this.nextitem = i < length - 1 ? items[i + 1] : undefined;
  }
}

/** Whether any node below `root` satisfies `predicate` (ObjectLiteral keeps its entries in a Map). */
function containsNode(root: unknown, predicate: (node: AstNode) => boolean): boolean {
  if (Array.isArray(root)) return root.some((item) => containsNode(item, predicate));
  if (root instanceof Map) return Array.from(root).some(([key, value]) => containsNode(key, predicate) || containsNode(value, predicate));
  if (typeof root !== 'object' || root === null || typeof (root as AstNode).type !== 'string') return false;
  if (predicate(root as AstNode)) return true;
  return Object.values(root).some((child) => containsNode(child, predicate));
}

/** A name a template may bind; the rest would need the interpreter's per-Environment `namespace` or break the scope objects. */
function bindable(name: string): string {
  return name === 'namespace' || name === '__proto__' ? unsupported(`binding the name ${name}`) : name;
}

interface Parameter {
  name: string;
  fallback: Evaluate | undefined;
}

interface Arguments {
  positional: (scope: Scope) => unknown[];
  /** Absent when the call has no keyword arguments. */
  keyword: ((scope: Scope) => Map<string, unknown>) | undefined;
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
    scope[parameter.name] = value;
  }
  if (keyword.size > 0) throw new Error(`macro ${displayName} takes no keyword argument '${String(keyword.keys().next().value)}'`);
  if (args.length > parameters.length) throw new Error(`macro ${displayName} takes not more than ${parameters.length} argument(s)`);
  for (const parameter of pending) scope[parameter.name] = (parameter.fallback as Evaluate)(scope);
}

/** Python-style slicing, the interpreter's `slice`. */
function sliceItems<T>(array: T[], start: number | undefined, stop: number | undefined, step = 1): T[] {
  const direction = Math.sign(step);
  if (direction >= 0) {
    start = (start ??= 0) < 0 ? Math.max(array.length + start, 0) : Math.min(start, array.length);
    stop = (stop ??= array.length) < 0 ? Math.max(array.length + stop, 0) : Math.min(stop, array.length);
  } else {
    start = (start ??= array.length - 1) < 0 ? Math.max(array.length + start, -1) : Math.min(start, array.length - 1);
    stop = (stop ??= -1) < -1 ? Math.max(array.length + stop, -1) : Math.min(stop, array.length - 1);
  }
  const result: T[] = [];
  for (let i = start; direction * i < direction * stop; i += step) result.push(array[i] as T);
  return result;
}

function sliceBound(value: unknown, name: string): number | undefined {
  if (value === undefined || kindOf(value) === 'integer') return value as number | undefined;
  throw new Error(`Slice ${name} must be numeric or undefined`);
}

function output(value: unknown): string {
  if (typeof value === 'string') return value;
  return value === null || value === undefined ? '' : display(value);
}

class Compiler {
  /** Whether any loop may see `break`/`continue` (only then do loop bodies pay for a try/catch). */
  readonly #hasLoopControl: boolean;

  constructor(hasLoopControl: boolean) {
    this.#hasLoopControl = hasLoopControl;
  }

  block(nodes: AstNode[]): Render {
    const renders = nodes.map((node) => this.statement(node));
    if (renders.length === 0) return () => '';
    if (renders.length === 1) return renders[0] as Render;
    return (scope) => {
      let text = '';
      for (const render of renders) text += render(scope);
      return text;
    };
  }

  statement(node: AstNode): Render {
    switch (node.type) {
      case 'StringLiteral': {
        const text = (node as LiteralNode<string>).value;
        return () => text;
      }
      case 'Comment':
        return () => '';
      case 'If': {
        const { test, body, alternate } = node as IfNode;
        const condition = this.expression(test);
        const then = this.block(body);
        const otherwise = this.block(alternate);
        return (scope) => (truthy(condition(scope)) ? then(scope) : otherwise(scope));
      }
      case 'For':
        return this.forLoop(node as ForNode);
      case 'Set':
        return this.set(node as SetNode);
      case 'Macro':
        return this.macro(node as MacroNode);
      case 'CallStatement':
        return this.callStatement(node as CallStatementNode);
      case 'FilterStatement': {
        const { filter, body } = node as FilterStatementNode;
        const apply = this.filter(filter);
        const render = this.block(body);
        return (scope) => output(apply(render(scope), scope));
      }
      case 'Break':
        return () => {
          throw BREAK;
        };
      case 'Continue':
        return () => {
          throw CONTINUE;
        };
      default: {
        const evaluate = this.expression(node);
        return (scope) => output(evaluate(scope));
      }
    }
  }

  expression(node: AstNode): Evaluate {
    switch (node.type) {
      case 'IntegerLiteral': {
        const value = (node as LiteralNode<number>).value;
        if (!Number.isInteger(value)) unsupported('an integer literal beyond what a double holds');
        return () => value;
      }
      case 'FloatLiteral': {
        const value = makeFloat((node as LiteralNode<number>).value);
        return () => value;
      }
      case 'StringLiteral': {
        const value = (node as LiteralNode<string>).value;
        return () => value;
      }
      case 'ArrayLiteral': {
        const items = (node as LiteralNode<AstNode[]>).value.map((item) => this.expression(item));
        return (scope) => items.map((item) => item(scope));
      }
      case 'TupleLiteral': {
        const items = (node as LiteralNode<AstNode[]>).value.map((item) => this.expression(item));
        return (scope) => makeTuple(items.map((item) => item(scope)));
      }
      case 'ObjectLiteral':
        return this.objectLiteral(node as LiteralNode<Map<AstNode, AstNode>>);
      case 'Identifier': {
        const name = (node as IdentifierNode).value;
        if (name === '__proto__') unsupported('the name __proto__');
        return (scope) => scope[name];
      }
      case 'MemberExpression':
        return this.member(node as MemberExpressionNode);
      case 'CallExpression':
        return this.call(node as CallExpressionNode);
      case 'UnaryExpression': {
        const { operator, argument } = node as UnaryExpressionNode;
        const evaluate = this.expression(argument);
        const name = operator.value;
        if (name === 'not') return (scope) => !truthy(evaluate(scope));
        return (scope) => unaryOperation(name, evaluate(scope));
      }
      case 'BinaryExpression':
        return this.binary(node as BinaryExpressionNode);
      case 'FilterExpression': {
        const { operand, filter } = node as FilterExpressionNode;
        const evaluate = this.expression(operand);
        const apply = this.filter(filter);
        return (scope) => apply(evaluate(scope), scope);
      }
      case 'TestExpression': {
        const { operand, negate, test } = node as TestExpressionNode;
        const evaluate = this.expression(operand);
        const predicate = VALUE_TESTS.get(test.value);
        if (!predicate) {
          return (scope) => {
            evaluate(scope);
            throw new Error(`Unknown test: ${test.value}`);
          };
        }
        return negate ? (scope) => !predicate(evaluate(scope)) : (scope) => predicate(evaluate(scope));
      }
      case 'SelectExpression': {
        const { lhs, test } = node as SelectExpressionNode;
        const value = this.expression(lhs);
        const condition = this.expression(test);
        return (scope) => (truthy(condition(scope)) ? value(scope) : undefined);
      }
      case 'Ternary': {
        const { condition, trueExpr, falseExpr } = node as TernaryNode;
        const test = this.expression(condition);
        const yes = this.expression(trueExpr);
        const no = this.expression(falseExpr);
        return (scope) => (truthy(test(scope)) ? yes(scope) : no(scope));
      }
      default:
        return unsupported(`the node ${node.type}`);
    }
  }

  objectLiteral(node: LiteralNode<Map<AstNode, AstNode>>): Evaluate {
    const entries = Array.from(node.value, ([key, value]) => [this.expression(key), this.expression(value)] as const);
    return (scope) => {
      const object = Object.create(null) as Record<string, unknown>;
      for (const [key, value] of entries) {
        const name = key(scope);
        if (typeof name !== 'string') throw new Error(`Object keys must be strings: got ${kindOf(name)}`);
        // A JS object lists integer-like keys first; the interpreter's Map keeps insertion order.
        if (/^\d+$/.test(name)) unsupported('an integer-like key in an object literal');
        object[name] = value(scope);
      }
      return object;
    };
  }

  member(node: MemberExpressionNode): Evaluate {
    const object = this.expression(node.object);
    if (node.computed) {
      if (node.property.type === 'SliceExpression') return this.slice(object, node.property as SliceExpressionNode);
      const property = this.expression(node.property);
      return (scope) => {
        const value = object(scope);
        return getMember(value, property(scope));
      };
    }
    const property = (node.property as LiteralNode<string | number>).value;
    if (typeof property !== 'string') return (scope) => getMember(object(scope), property);
    return (scope) => {
      const value = object(scope);
      // Fast path: an own key of a plain mapping (messages, tool calls, `loop`) is what getMember returns.
      if (typeof value === 'object' && value !== null && (value.constructor === Object || value instanceof LoopInfo) && hasOwn(value, property)) {
        return (value as Record<string, unknown>)[property];
      }
      return getMember(value, property);
    };
  }

  slice(object: Evaluate, node: SliceExpressionNode): Evaluate {
    const part = (child: AstNode | undefined): Evaluate => (child ? this.expression(child) : () => undefined);
    const [start, stop, step] = [part(node.start), part(node.stop), part(node.step)];
    return (scope) => {
      const value = object(scope);
      const kind = kindOf(value);
      if (!(isArrayKind(kind) || kind === 'string')) throw new Error('Slice object must be an array or string');
      const from = sliceBound(start(scope), 'start');
      const to = sliceBound(stop(scope), 'stop');
      const by = sliceBound(step(scope), 'step');
      if (kind === 'string') return sliceItems(Array.from(value as string), from, to, by).join('');
      return sliceItems(value as unknown[], from, to, by);
    };
  }

  arguments(nodes: AstNode[]): Arguments {
    const positionalNodes = nodes.filter((node) => node.type !== 'KeywordArgumentExpression' && node.type !== 'KeywordSpreadExpression');
    const keywordNodes = nodes.filter((node) => node.type === 'KeywordArgumentExpression' || node.type === 'KeywordSpreadExpression');
    const positional = positionalNodes.map((node) => {
      if (node.type === 'SpreadExpression') {
        const spread = this.expression((node as SpreadNode).argument);
        return { spread: true, evaluate: spread };
      }
      return { spread: false, evaluate: this.expression(node) };
    });
    const keyword = keywordNodes.map((node) =>
      node.type === 'KeywordArgumentExpression'
        ? { name: (node as KeywordArgumentNode).key.value, evaluate: this.expression((node as KeywordArgumentNode).value) }
        : { name: undefined, evaluate: this.expression((node as SpreadNode).argument) },
    );
    const hasSpread = positional.some((argument) => argument.spread);
    return {
      positional: hasSpread
        ? (scope) => {
            const values: unknown[] = [];
            for (const argument of positional) {
              const value = argument.evaluate(scope);
              if (!argument.spread) {
                values.push(value);
              } else {
                if (!isArrayKind(kindOf(value))) throw new Error(`Cannot unpack non-iterable type: ${kindOf(value)}`);
                values.push(...(value as unknown[]));
              }
            }
            return values;
          }
        : (scope) => positional.map((argument) => argument.evaluate(scope)),
      keyword:
        keyword.length === 0
          ? undefined
          : (scope) => {
              const values = new Map<string, unknown>();
              const add = (name: string, value: unknown): void => {
                if (values.has(name)) throw new Error(`Got multiple values for keyword argument '${name}'`);
                values.set(name, value);
              };
              for (const argument of keyword) {
                const value = argument.evaluate(scope);
                if (argument.name !== undefined) {
                  add(argument.name, value);
                } else {
                  if (kindOf(value) !== 'object') throw new Error(`Argument after ** must be a mapping, not ${kindOf(value)}`);
                  for (const [name, item] of Object.entries(value as object)) add(name, item);
                }
              }
              return values;
            },
    };
  }

  call(node: CallExpressionNode): Evaluate {
    const { positional, keyword } = this.arguments(node.args);
    const keywords = (scope: Scope): Kwargs => {
      const values = keyword?.(scope);
      return values && values.size > 0 ? values : undefined;
    };
    const callee = node.callee as MemberExpressionNode;
    if (callee.type === 'MemberExpression' && !callee.computed && callee.property.type === 'Identifier') {
      const object = this.expression(callee.object);
      const name = (callee.property as IdentifierNode).value;
      return (scope) => {
        const args = positional(scope);
        const kwargs = keywords(scope);
        return callMethod(object(scope), name, args, kwargs, scope);
      };
    }
    const evaluateCallee = this.expression(node.callee);
    return (scope) => {
      const args = positional(scope);
      const kwargs = keywords(scope);
      return callValue(evaluateCallee(scope), args, kwargs, scope);
    };
  }

  binary(node: BinaryExpressionNode): Evaluate {
    const operator = node.operator.value;
    const left = this.expression(node.left);
    const right = this.expression(node.right);
    switch (operator) {
      case 'and':
        return (scope) => {
          const value = left(scope);
          return truthy(value) ? right(scope) : value;
        };
      case 'or':
        return (scope) => {
          const value = left(scope);
          return truthy(value) ? value : right(scope);
        };
      case '==':
        return (scope) => {
          const a = left(scope);
          const b = right(scope);
          return typeof a === 'string' && typeof b === 'string' ? a === b : looseEquals(a, b);
        };
      case '!=':
        return (scope) => {
          const a = left(scope);
          const b = right(scope);
          return typeof a === 'string' && typeof b === 'string' ? a !== b : !looseEquals(a, b);
        };
      case '+':
      case '~':
        return (scope) => {
          const a = left(scope);
          const b = right(scope);
          return typeof a === 'string' && typeof b === 'string' ? a + b : binaryOperation(operator, a, b);
        };
      case '-':
      case '<':
      case '>':
      case '<=':
      case '>=': {
        // Fast path for two integers (loop indices, lengths); anything else takes the interpreter's checks.
        const integers = { '-': (a: number, b: number) => a - b, '<': (a: number, b: number) => a < b, '>': (a: number, b: number) => a > b, '<=': (a: number, b: number) => a <= b, '>=': (a: number, b: number) => a >= b }[operator];
        return (scope) => {
          const a = left(scope);
          const b = right(scope);
          return Number.isSafeInteger(a) && Number.isSafeInteger(b) ? integers(a as number, b as number) : binaryOperation(operator, a, b);
        };
      }
      default:
        return (scope) => {
          const a = left(scope);
          return binaryOperation(operator, a, right(scope));
        };
    }
  }

  /** A filter applied to an evaluated operand. */
  filter(node: AstNode): (operand: unknown, scope: Scope) => unknown {
    if (node.type === 'Identifier') {
      const name = (node as IdentifierNode).value;
      return (operand) => applyFilter(name, operand);
    }
    if (node.type !== 'CallExpression' || (node as CallExpressionNode).callee.type !== 'Identifier') return unsupported(`the filter node ${node.type}`);
    const { callee, args } = node as CallExpressionNode;
    const name = (callee as IdentifierNode).value;
    const argsAreStringLiterals = args.every((arg) => arg.type === 'StringLiteral');
    const { positional, keyword } = this.arguments(args);
    return (operand, scope) => applyCallFilter(name, operand, positional(scope), keyword?.(scope) ?? new Map(), argsAreStringLiterals);
  }

  set(node: SetNode): Render {
    const value: Evaluate = node.value ? this.expression(node.value) : this.block(node.body);
    const assignee = node.assignee;
    if (assignee.type === 'Identifier') {
      const name = bindable((assignee as IdentifierNode).value);
      return (scope) => {
        scope[name] = value(scope);
        return '';
      };
    }
    if (assignee.type === 'TupleLiteral') {
      const names = (assignee as LiteralNode<AstNode[]>).value.map((item) =>
        item.type === 'Identifier' ? bindable((item as IdentifierNode).value) : unsupported('unpacking into a non-identifier'),
      );
      return (scope) => {
        const values = value(scope);
        if (!isArrayKind(kindOf(values))) throw new Error(`Cannot unpack non-iterable type in set: ${kindOf(values)}`);
        const items = values as unknown[];
        if (items.length !== names.length) throw new Error(`Too ${names.length > items.length ? 'few' : 'many'} items to unpack in set`);
        names.forEach((name, i) => (scope[name] = items[i]));
        return '';
      };
    }
    if (assignee.type === 'MemberExpression' && (assignee as MemberExpressionNode).property.type === 'Identifier') {
      const object = this.expression((assignee as MemberExpressionNode).object);
      const property = ((assignee as MemberExpressionNode).property as IdentifierNode).value;
      return (scope) => {
        const assigned = value(scope);
        const target = object(scope);
        if (!(target instanceof Namespace)) throw new Error('cannot assign attribute on non-namespace object');
        target.entries.set(property, assigned);
        return '';
      };
    }
    return unsupported(`assigning to ${assignee.type}`);
  }

  forLoop(node: ForNode): Render {
    const loopvar = node.loopvar;
    let names: string[] | undefined;
    let bind: (scope: Scope, item: unknown) => void;
    if (loopvar.type === 'Identifier') {
      const name = bindable((loopvar as IdentifierNode).value);
      bind = (scope, item) => {
        scope[name] = item;
      };
    } else {
      const tupleNames = (loopvar as LiteralNode<AstNode[]>).value.map((item) =>
        item.type === 'Identifier' ? bindable((item as IdentifierNode).value) : unsupported('unpacking into a non-identifier'),
      );
      names = tupleNames;
      bind = (scope, item) => tupleNames.forEach((name, j) => (scope[name] = (item as unknown[])[j]));
    }
    const select = node.iterable.type === 'SelectExpression' ? (node.iterable as SelectExpressionNode) : undefined;
    const iterable = this.expression(select ? select.lhs : node.iterable);
    const test = select ? this.expression(select.test) : undefined;
    const body = this.block(node.body);
    const otherwise = this.block(node.defaultBlock);
    const control = this.#hasLoopControl;
    return (scope) => {
      const loopScope = Object.create(scope) as Scope;
      const value = iterable(loopScope);
      const kind = kindOf(value);
      let items: unknown[];
      if (isArrayKind(kind)) items = value as unknown[];
      else if (kind === 'object') items = Object.keys(value as object);
      else throw new Error(`Expected iterable or object type in for loop: got ${kind}`);
      if (names || test) {
        const kept: unknown[] = [];
        for (const item of items) {
          if (names) {
            // The interpreter checks every item before the first iteration: TupleValue items fail too.
            if (kindOf(item) !== 'array') throw new Error(`Cannot unpack non-iterable type: ${kindOf(item)}`);
            const length = (item as unknown[]).length;
            if (names.length !== length) throw new Error(`Too ${names.length > length ? 'few' : 'many'} items to unpack`);
          }
          if (test) {
            const testScope = Object.create(loopScope) as Scope;
            bind(testScope, item);
            if (!truthy(test(testScope))) continue;
          }
          kept.push(item);
        }
        items = kept;
      }
      let text = '';
      let noIteration = true;
      for (let i = 0; i < items.length; ++i) {
        loopScope.loop = new LoopInfo(i, items);
        bind(loopScope, items[i]);
        if (control) {
          try {
            text += body(loopScope);
          } catch (error) {
            if (error === CONTINUE) continue;
            if (error === BREAK) break;
            throw error;
          }
        } else {
          text += body(loopScope);
        }
        noIteration = false;
      }
      if (noIteration) text += otherwise(loopScope);
      return text;
    };
  }

  parameters(nodes: AstNode[]): Parameter[] {
    return nodes.map((node) => {
      if (node.type === 'Identifier') return { name: bindable((node as IdentifierNode).value), fallback: undefined };
      const { key, value } = node as KeywordArgumentNode;
      return { name: bindable(key.value), fallback: this.expression(value) };
    });
  }

  macro(node: MacroNode): Render {
    if (containsNode([node.args, node.body], (child) => child.type === 'Identifier' && ['kwargs', 'varargs'].includes((child as IdentifierNode).value))) {
      unsupported('a macro reading kwargs or varargs');
    }
    const name = bindable(node.name.value);
    const parameters = this.parameters(node.args);
    const body = this.block(node.body);
    return (scope) => {
      // Called with the caller's scope: the interpreter's macros scope dynamically.
      scope[name] = new TemplateFunction((args, kwargs, callScope) => {
        const macroScope = Object.create(callScope) as Scope;
        bindMacroArguments(`'${name}'`, parameters, args, kwargs, macroScope);
        return body(macroScope);
      }, true);
      return '';
    };
  }

  callStatement(node: CallStatementNode): Render {
    const callerNodes = node.callerArgs ?? [];
    if (containsNode([callerNodes, node.body], (child) => child.type === 'Identifier' && ['kwargs', 'varargs'].includes((child as IdentifierNode).value))) {
      unsupported('a call block reading kwargs or varargs');
    }
    const parameters = this.parameters(callerNodes);
    const body = this.block(node.body);
    const { positional, keyword } = this.arguments(node.call.args);
    const callee = this.expression(node.call.callee);
    return (scope) => {
      const caller = new TemplateFunction((args, kwargs) => {
        const callerScope = Object.create(scope) as Scope;
        bindMacroArguments('None', parameters, args, kwargs, callerScope);
        return body(callerScope);
      }, true);
      const args = positional(scope);
      const kwargs = keyword?.(scope) ?? new Map<string, unknown>();
      const macro = callee(scope);
      if (!(macro instanceof TemplateFunction)) throw new Error(`Cannot call something that is not a function: got ${kindOf(macro)}`);
      if (!macro.isMacro) unsupported('a call block around a builtin function');
      const macroScope = Object.create(scope) as Scope;
      macroScope.caller = caller;
      return output(macro.call(args, kwargs, macroScope));
    };
  }
}
