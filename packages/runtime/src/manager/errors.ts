/** `start` rejected: leadership was lost while running. */
export class LeaderElectionLostError extends Error {
  constructor() {
    super('leader election lost');
    this.name = 'LeaderElectionLostError';
  }
}
