// A count over a scenario's time (Machines Running during a scale-up, Machines left during a scale-down), as the
// JSON keeps it and the charts draw it: [seconds since the scenario's start, count] pairs.

export type SeriesPoint = [seconds: number, count: number];

/**
 * Keeps a sample only where the count changes, plus the last sample of each flat stretch: a step line through the
 * points is exactly what the polls saw, and a 2,000-Machine scale-up polled every second stays a few hundred points.
 */
export class CountSeries {
  readonly points: SeriesPoint[] = [];

  add(seconds: number, count: number): void {
    const t = Math.round(seconds * 100) / 100;
    const n = this.points.length;
    const last = this.points[n - 1];
    const before = this.points[n - 2];
    // Three in a row with one count: the middle one says nothing a step line does not.
    if (last && before && last[1] === count && before[1] === count) last[0] = t;
    else this.points.push([t, count]);
  }
}
