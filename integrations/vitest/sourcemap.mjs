// Maps istanbul statement locations in transformed code back to original source lines, the
// way @vitest/coverage-istanbul's report does (istanbul-lib-source-maps' getMapping), so that
// the recorded lines are the lines of the `.ts` / `.tsx` / `.js` file a patch changes.
//
// Self-contained (a small base64 VLQ decoder instead of a dependency): this module is loaded
// inside the user's Vitest workers, next to the recorder, and must import nothing that the
// user's project may not resolve.

const B64 = new Int8Array(128).fill(-1);
for (const [i, c] of [
  ..."ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/",
].entries()) {
  B64[c.charCodeAt(0)] = i;
}

/**
 * Decodes a source map's `mappings` into one array of segments per generated line (0-based
 * line index). A segment is [generatedColumn, sourceIndex, originalLine, originalColumn]
 * (all 0-based) or [generatedColumn] for a segment without a source. Each line is sorted by
 * generated column, as trace-mapping sorts it.
 */
export function decodeMappings(mappings) {
  const lines = [];
  let line = [];
  let genCol = 0;
  let src = 0;
  let srcLine = 0;
  let srcCol = 0;
  let sorted = true;
  let i = 0;
  const n = mappings.length;
  const seg = [0, 0, 0, 0, 0];
  while (i <= n) {
    const ch = i < n ? mappings.charCodeAt(i) : 59; // end of input closes the last line
    if (ch === 59 /* ; */) {
      if (!sorted) line.sort((a, b) => a[0] - b[0]);
      lines.push(line);
      line = [];
      genCol = 0;
      sorted = true;
      i++;
      continue;
    }
    if (ch === 44 /* , */) {
      i++;
      continue;
    }
    let fields = 0;
    while (i < n) {
      const c = mappings.charCodeAt(i);
      if (c === 44 || c === 59) break;
      let value = 0;
      let shift = 0;
      let digit = 0;
      do {
        digit = B64[mappings.charCodeAt(i++)];
        if (digit === undefined || digit < 0) throw new Error("invalid source map mappings");
        value |= (digit & 31) << shift;
        shift += 5;
      } while (digit & 32);
      const negative = value & 1;
      value >>>= 1;
      seg[fields++] = negative ? (value === 0 ? -0x80000000 : -value) : value;
    }
    const prevCol = genCol;
    genCol += seg[0];
    if (genCol < prevCol) sorted = false;
    if (fields >= 4) {
      src += seg[1];
      srcLine += seg[2];
      srcCol += seg[3];
      line.push([genCol, src, srcLine, srcCol]);
    } else {
      line.push([genCol]);
    }
  }
  return lines;
}

const GLB = -1;
const LUB = 1;

// trace-mapping's originalPositionFor on a decoded map: line is 1-based, column 0-based.
// Returns [sourceIndex, line (1-based), column] or null.
function originalPositionFor(decoded, line, column, bias) {
  const segs = decoded[line - 1];
  if (!segs || segs.length === 0) return null;
  let lo = 0;
  let hi = segs.length - 1;
  let found = false;
  while (lo <= hi) {
    const mid = (lo + hi) >> 1;
    const c = segs[mid][0] - column;
    if (c === 0) {
      found = true;
      lo = mid;
      break;
    }
    if (c < 0) lo = mid + 1;
    else hi = mid - 1;
  }
  let index;
  if (found) {
    index = lo;
    if (bias === LUB) {
      while (index + 1 < segs.length && segs[index + 1][0] === column) index++;
    } else {
      while (index - 1 >= 0 && segs[index - 1][0] === column) index--;
    }
  } else {
    index = bias === LUB ? lo : lo - 1;
  }
  if (index < 0 || index >= segs.length) return null;
  const s = segs[index];
  if (s.length === 1) return null;
  return [s[1], s[2] + 1, s[3]];
}

function tryBoth(decoded, line, column) {
  return (
    originalPositionFor(decoded, line, column, GLB) ??
    originalPositionFor(decoded, line, column, LUB)
  );
}

/**
 * The original location of one istanbul location ({start: {line, column}, end: {...}},
 * lines 1-based), or null when the report would drop it: the start or the end has no
 * original position, or they lie in different sources. Returns
 * [sourceIndex, startLine, endLine].
 */
export function mapLocation(decoded, loc) {
  const { start, end } = loc;
  if (!start || !end || start.line < 0 || start.column < 0 || end.line < 0 || end.column < 0) {
    return null;
  }
  const s = tryBoth(decoded, start.line, start.column);
  if (!s) return null;
  let e = tryBoth(decoded, end.line, end.column - 1);
  for (let line = end.line; !e && line > 0; line--) {
    e = tryBoth(decoded, line, Number.POSITIVE_INFINITY);
  }
  if (!e || e[0] !== s[0]) return null;
  return [s[0], s[1], Math.max(s[1], e[1])];
}
