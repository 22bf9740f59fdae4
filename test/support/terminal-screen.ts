/**
 * What a terminal shows after `text`, as far as a progress bar moves its cursor: the column (`ESC[nG`,
 * `\r`), rows up and down (`ESC[nA`, `ESC[nB`), clearing (`ESC[K`, `ESC[2K`); other sequences are left out.
 */
export function visible(text: string): string {
  const rows: string[] = [''];
  let row = 0;
  let column = 0;
  for (const [, sequence, char] of text.matchAll(/(\x1b\[[?\d;]*[A-Za-z]|\x1b[78])|([\s\S])/g)) {
    if (char === '\n') {
      row += 1;
      column = 0;
      rows[row] ??= '';
    } else if (char === '\r') column = 0;
    else if (char !== undefined) {
      rows[row] = rows[row]!.padEnd(column).slice(0, column) + char + rows[row]!.slice(column + 1);
      column += 1;
    } else {
      const [, count = '', command] = /^\x1b\[\??(\d*)(?:;\d+)*([A-Za-z])$/.exec(sequence!) ?? [];
      const n = Number(count || 1);
      if (command === 'G') column = n - 1;
      else if (command === 'A') row = Math.max(0, row - n);
      else if (command === 'B') row += n;
      else if (command === 'K' && count === '2') rows[row] = '';
      else if (command === 'K' && count !== '1') rows[row] = rows[row]!.slice(0, column);
      rows[row] ??= '';
    }
  }
  return rows.join('\n');
}
