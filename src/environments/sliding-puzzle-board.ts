import { createSeededRandom } from '../util/seeded-random.js';

/** A sliding puzzle: `grid[r][c]` holds tiles 1…n²−1 and 0 for the empty space. */
export interface Board {
  size: number;
  grid: number[][];
  empty: [number, number];
}

export type Direction = 'up' | 'down' | 'left' | 'right';

/** Where the tile that moves comes from, relative to the empty space: "up" slides the tile below it up. */
const sourceOffset: Record<Direction, [number, number]> = { up: [1, 0], down: [-1, 0], left: [0, 1], right: [0, -1] };

export function solvedBoard(size: number): Board {
  const grid = Array.from({ length: size }, (_, r) => Array.from({ length: size }, (_, c) => r * size + c + 1));
  grid[size - 1]![size - 1] = 0;
  return { size, grid, empty: [size - 1, size - 1] };
}

/**
 * A board shuffled by random legal moves from the solved one, so it is always solvable; never
 * returned already solved.
 */
export function shuffledBoard(size: number, shuffleMoves: number, seed: number): Board {
  const random = createSeededRandom(seed);
  let board = solvedBoard(size);
  const directions: Direction[] = ['up', 'down', 'left', 'right'];
  for (let i = 0; i < shuffleMoves || isSolved(board); i++) {
    const legal = directions.filter((direction) => slide(board, direction) !== undefined);
    board = slide(board, random.pick(legal))!;
  }
  return board;
}

/** The board after sliding, or undefined when no tile can move that way. */
export function slide(board: Board, direction: Direction): Board | undefined {
  const [er, ec] = board.empty;
  const [dr, dc] = sourceOffset[direction];
  const [r, c] = [er + dr, ec + dc];
  if (r < 0 || c < 0 || r >= board.size || c >= board.size) return undefined;
  const grid = board.grid.map((row) => [...row]);
  grid[er]![ec] = grid[r]![c]!;
  grid[r]![c] = 0;
  return { size: board.size, grid, empty: [r, c] };
}

export function tileAt(board: Board, [r, c]: [number, number]): number {
  return board.grid[r]![c]!;
}

export function isSolved(board: Board): boolean {
  return board.grid.every((row, r) => row.every((tile, c) => tile === (r === board.size - 1 && c === board.size - 1 ? 0 : r * board.size + c + 1)));
}

/** The board as NeMo RL draws it: bordered, rows and columns numbered from 1. */
export function renderBoard(board: Board): string {
  const width = String(board.size * board.size - 1).length + 2;
  const border = `  +${'-'.repeat(width * board.size)}+`;
  const rows = board.grid.map(
    (row, r) => `${r + 1} |${row.map((tile) => (tile === 0 ? ' '.repeat(width) : ` ${String(tile).padStart(width - 2)} `)).join('')}|`,
  );
  const labels = `    ${Array.from({ length: board.size }, (_, c) => centered(String(c + 1), width)).join('')}`;
  return ['', border, ...rows, border, labels].join('\n');
}

function centered(text: string, width: number): string {
  const left = Math.floor((width - text.length) / 2);
  return ' '.repeat(left) + text + ' '.repeat(width - text.length - left);
}
