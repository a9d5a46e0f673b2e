/** Runs `task(i)` for every i in [0, n), at most `concurrency` at a time (the benches' parallel creates). */
export async function forEachConcurrently(n: number, concurrency: number, task: (i: number) => Promise<void>): Promise<void> {
  let next = 0;
  const worker = async (): Promise<void> => {
    for (let i = next++; i < n; i = next++) await task(i);
  };
  await Promise.all(Array.from({ length: concurrency }, worker));
}
