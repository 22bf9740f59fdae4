// Fast path: mirrors @huggingface/jinja 0.5.11's parse and interpreter; 25× faster (docs/fast-paths.md#jinja); guard: test/tokens/jinja-fast-path.test.ts.
import type {
  AstNode,
  BinaryExpressionNode,
  CallExpressionNode,
  FilterExpressionNode,
  IdentifierNode,
  LiteralNode,
  MemberExpressionNode,
  SelectExpressionNode,
  TernaryNode,
  TestExpressionNode,
  UnaryExpressionNode,
} from './ast-nodes.fast.js';
import { compileBinary } from './compile-binary.fast.js';
import { compileCall } from './compile-call.fast.js';
import { compileFilter } from './compile-filter.fast.js';
import { compileMember } from './compile-member.fast.js';
import type { Evaluate } from './compiled-closures.fast.js';
import { unaryOperation } from './operators.fast.js';
import { kindOf, makeFloat, makeTuple, truthy } from './template-values.fast.js';
import { unsupported } from './unsupported-construct-error.fast.js';
import { VALUE_TESTS } from './value-tests.fast.js';

/** Compiles an expression node into a closure computing its value; any node type not listed is left to the interpreter. */
export function compileExpression(node: AstNode): Evaluate {
  const compile = EXPRESSIONS.get(node.type);
  return compile ? compile(node) : unsupported(`the node ${node.type}`);
}

const EXPRESSIONS = new Map<string, (node: AstNode) => Evaluate>([
  ['IntegerLiteral', (node) => integerLiteral(node as LiteralNode<number>)],
  ['FloatLiteral', (node) => constant(makeFloat((node as LiteralNode<number>).value))],
  ['StringLiteral', (node) => constant((node as LiteralNode<string>).value)],
  ['ArrayLiteral', (node) => arrayLiteral(node as LiteralNode<AstNode[]>)],
  ['TupleLiteral', (node) => tupleLiteral(node as LiteralNode<AstNode[]>)],
  ['ObjectLiteral', (node) => objectLiteral(node as LiteralNode<Map<AstNode, AstNode>>)],
  ['Identifier', (node) => identifier(node as IdentifierNode)],
  ['MemberExpression', (node) => compileMember(node as MemberExpressionNode, compileExpression)],
  ['CallExpression', (node) => compileCall(node as CallExpressionNode, compileExpression)],
  ['UnaryExpression', (node) => unary(node as UnaryExpressionNode)],
  ['BinaryExpression', (node) => binary(node as BinaryExpressionNode)],
  ['FilterExpression', (node) => filterExpression(node as FilterExpressionNode)],
  ['TestExpression', (node) => testExpression(node as TestExpressionNode)],
  ['SelectExpression', (node) => selectExpression(node as SelectExpressionNode)],
  ['Ternary', (node) => ternary(node as TernaryNode)],
]);

function constant(value: unknown): Evaluate {
  return () => value;
}

function integerLiteral(node: LiteralNode<number>): Evaluate {
  if (!Number.isInteger(node.value)) unsupported('an integer literal beyond what a double holds');
  return constant(node.value);
}

function arrayLiteral(node: LiteralNode<AstNode[]>): Evaluate {
  const items = node.value.map(compileExpression);
  return (scope) => items.map((item) => item(scope));
}

function tupleLiteral(node: LiteralNode<AstNode[]>): Evaluate {
  const items = node.value.map(compileExpression);
  return (scope) => makeTuple(items.map((item) => item(scope)));
}

function objectLiteral(node: LiteralNode<Map<AstNode, AstNode>>): Evaluate {
  const entries = Array.from(node.value, ([key, value]) => [compileExpression(key), compileExpression(value)] as const);
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

function identifier(node: IdentifierNode): Evaluate {
  const name = node.value;
  if (name === '__proto__') unsupported('the name __proto__');
  return (scope) => scope.lookup(name);
}

function unary({ operator, argument }: UnaryExpressionNode): Evaluate {
  const evaluate = compileExpression(argument);
  const name = operator.value;
  if (name === 'not') return (scope) => !truthy(evaluate(scope));
  return (scope) => unaryOperation(name, evaluate(scope));
}

function binary(node: BinaryExpressionNode): Evaluate {
  return compileBinary(node.operator.value, compileExpression(node.left), compileExpression(node.right));
}

function filterExpression({ operand, filter }: FilterExpressionNode): Evaluate {
  const evaluate = compileExpression(operand);
  const apply = compileFilter(filter, compileExpression);
  return (scope) => apply(evaluate(scope), scope);
}

function testExpression({ operand, negate, test }: TestExpressionNode): Evaluate {
  const evaluate = compileExpression(operand);
  const predicate = VALUE_TESTS.get(test.value);
  if (!predicate) {
    return (scope) => {
      evaluate(scope);
      throw new Error(`Unknown test: ${test.value}`);
    };
  }
  return negate ? (scope) => !predicate(evaluate(scope)) : (scope) => predicate(evaluate(scope));
}

function selectExpression({ lhs, test }: SelectExpressionNode): Evaluate {
  const value = compileExpression(lhs);
  const condition = compileExpression(test);
  return (scope) => (truthy(condition(scope)) ? value(scope) : undefined);
}

function ternary({ condition, trueExpr, falseExpr }: TernaryNode): Evaluate {
  const test = compileExpression(condition);
  const yes = compileExpression(trueExpr);
  const no = compileExpression(falseExpr);
  return (scope) => (truthy(test(scope)) ? yes(scope) : no(scope));
}
