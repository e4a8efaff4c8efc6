// Who hears about changes to an emulated world (the InstanceView, tests), notified after every mutation.
export class ChangeListeners {
  private readonly listeners = new Set<() => void>();

  /** Adds a listener; the returned function removes it. */
  add(listener: () => void): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  /** Calls every listener; one that throws neither stops the others nor reaches the caller. */
  notify(): void {
    for (const l of [...this.listeners]) {
      try {
        l();
      } catch {
        // A failing listener (test code) must not break the emulator's request path.
      }
    }
  }
}
