import { Transform } from 'node:stream';

/**
 * Passes on only bytes [start, end] (inclusive) of what flows through, for servers that ignore Range;
 * `onDone` runs once the range is complete (to stop the download).
 */
export function rangeSlice(start: number, end: number, onDone: () => void): Transform {
  let offset = 0;
  let finished = false;
  return new Transform({
    transform(chunk: Buffer, _encoding, done) {
      if (finished) return done();
      const from = Math.max(0, start - offset);
      const to = Math.min(chunk.length, end + 1 - offset);
      offset += chunk.length;
      if (to > from) this.push(chunk.subarray(from, to));
      if (offset > end) {
        finished = true;
        this.push(null);
        onDone();
      }
      done();
    },
  });
}
