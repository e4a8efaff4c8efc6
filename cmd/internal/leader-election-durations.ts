// Leader-election timings as the Machine API binaries pick them: an explicit lease duration keeps the
// HA renew/retry values (scaled down when the lease is too short for them); otherwise single-replica
// clusters get 270/240/60 s and everything else 137/107/26 s.
export interface LeaseTimings {
  leaseDurationMs: number;
  renewDeadlineMs: number;
  retryPeriodMs: number;
}

export const haTimings: LeaseTimings = { leaseDurationMs: 137_000, renewDeadlineMs: 107_000, retryPeriodMs: 26_000 };
export const singleReplicaTimings: LeaseTimings = {
  leaseDurationMs: 270_000,
  renewDeadlineMs: 240_000,
  retryPeriodMs: 60_000,
};

export function leaseTimings(explicitLeaseMs: number, topology: string | undefined): LeaseTimings {
  if (explicitLeaseMs > 0) {
    if (explicitLeaseMs > haTimings.renewDeadlineMs) return { ...haTimings, leaseDurationMs: explicitLeaseMs };
    // Keep client-go's rule lease > renewDeadline > 1.2 × retry by keeping the HA proportions.
    const scale = explicitLeaseMs / haTimings.leaseDurationMs;
    return {
      leaseDurationMs: explicitLeaseMs,
      renewDeadlineMs: Math.round(haTimings.renewDeadlineMs * scale),
      retryPeriodMs: Math.round(haTimings.retryPeriodMs * scale),
    };
  }
  return topology === 'SingleReplica' ? singleReplicaTimings : haTimings;
}
