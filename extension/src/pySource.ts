/**
 * The module class around a line of Python source, read from the text alone (no server):
 * the commands use it to name the module under the cursor. Pure: unit-tested.
 */

const CLASS = /^class\s+([A-Za-z_]\w*)\s*[(:]/;

/** Name of the top-level class whose body holds `line` (0-based), else the only class, else undefined. */
export function classAt(text: string, line: number): string | undefined {
  const lines = text.split(/\r?\n/);
  const classes: { name: string; line: number }[] = [];
  lines.forEach((content, index) => {
    const match = CLASS.exec(content);
    if (match?.[1] !== undefined) {
      classes.push({ name: match[1], line: index });
    }
  });
  for (let index = classes.length - 1; index >= 0; index--) {
    const candidate = classes[index];
    if (candidate === undefined || candidate.line > line) {
      continue;
    }
    // inside the class while every non-blank line in between is indented (or a comment)
    const between = lines.slice(candidate.line + 1, line + 1);
    const left = between.some((l) => l.trim() !== '' && !/^\s/.test(l) && !l.startsWith('#'));
    if (!left) {
      return candidate.name;
    }
    break;
  }
  return classes.length === 1 ? classes[0]?.name : undefined;
}
