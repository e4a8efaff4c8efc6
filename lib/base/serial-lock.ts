// Runs async sections one at a time, in the order they asked: a section that throws does not keep the next
// one out. For a check-then-act on shared state (look, then write) made by concurrent workers.
export class SerialLock {
  private tail: Promise<unknown> = Promise.resolve();

  run<T>(section: () => Promise<T>): Promise<T> {
    const result = this.tail.then(section);
    this.tail = result.catch(() => undefined);
    return result;
  }
}
