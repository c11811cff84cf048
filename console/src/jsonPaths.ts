/**
 * Where each field of a JSON text sits: `properties.disks[0].initializeParams.diskSizeGb` -> line
 * (1-based). Lets the template editor pin the API's errors (which name field paths) to lines.
 * Tolerant: stops quietly at the first syntax error.
 */
export function jsonFieldLines(text: string): Map<string, number> {
  const lines = new Map<string, number>();
  type Frame = { kind: 'object'; path: string; key?: string } | { kind: 'array'; path: string; index: number };
  const stack: Frame[] = [];
  let line = 1;
  let i = 0;
  let expectKey = false;

  const childPath = (): string => {
    const top = stack[stack.length - 1];
    if (!top) return '';
    if (top.kind === 'array') return `${top.path}[${top.index}]`;
    return top.path ? `${top.path}.${top.key}` : String(top.key);
  };

  const readString = (): string | undefined => {
    let out = '';
    i++;
    while (i < text.length) {
      const c = text[i];
      if (c === '\\') {
        out += text[i + 1] ?? '';
        i += 2;
        continue;
      }
      if (c === '"') {
        i++;
        return out;
      }
      if (c === '\n') return undefined;
      out += c;
      i++;
    }
    return undefined;
  };

  while (i < text.length) {
    const c = text[i];
    if (c === '\n') {
      line++;
      i++;
    } else if (c === ' ' || c === '\t' || c === '\r' || c === ':') {
      i++;
    } else if (c === '{' || c === '[') {
      const path = childPath();
      if (path) lines.set(path, lines.get(path) ?? line);
      stack.push(c === '{' ? { kind: 'object', path } : { kind: 'array', path, index: 0 });
      expectKey = c === '{';
      i++;
    } else if (c === '}' || c === ']') {
      stack.pop();
      expectKey = false;
      i++;
    } else if (c === ',') {
      const top = stack[stack.length - 1];
      if (top?.kind === 'array') top.index++;
      expectKey = top?.kind === 'object';
      i++;
    } else if (c === '"') {
      const startLine = line;
      const s = readString();
      if (s === undefined) break;
      const top = stack[stack.length - 1];
      if (expectKey && top?.kind === 'object') {
        top.key = s;
        lines.set(childPath(), startLine);
        expectKey = false;
      }
    } else {
      // numbers, true, false, null
      while (i < text.length && !',}]\n'.includes(text[i])) i++;
    }
  }
  return lines;
}

/** The line of a field path, or of its nearest ancestor that the text has. */
export function lineOf(lines: Map<string, number>, path: string): number | undefined {
  let p = path;
  while (p) {
    const l = lines.get(p);
    if (l !== undefined) return l;
    const cut = Math.max(p.lastIndexOf('.'), p.lastIndexOf('['));
    if (cut <= 0) break;
    p = p.slice(0, cut);
  }
  return undefined;
}
