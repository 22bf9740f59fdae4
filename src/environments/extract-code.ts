/**
 * The program in a model's answer, found as NeMo Gym's code_gen finds it (LiveCodeBench's extraction
 * for chat models): the lines between the last two lines that hold a code fence (```), or null when
 * the answer has fewer than two. The fence's language tag is on the opening line, so it is dropped.
 */
export function extractCode(text: string): string | null {
  const lines = text.split('\n');
  const fences = lines.flatMap((line, index) => (line.includes('```') ? [index] : []));
  if (fences.length < 2) return null;
  const code = lines.slice(fences.at(-2)! + 1, fences.at(-1)).join('\n');
  return code.trim() === '' ? null : code;
}
