/**
 * A vitest reporter for CI: writes, one JSON line each, the tests that failed and the tests that
 * passed only on a retry, to the file named by SCOUT_OUTCOME_FILE. `.ci/run` prints them just above
 * its closing line, where a reader of the log's tail sees them (the full log may be cut).
 */
import { appendFileSync } from 'node:fs';
import { relative } from 'node:path';

export default class OutcomeReporter {
  onTestCaseResult(testCase) {
    const file = process.env.SCOUT_OUTCOME_FILE;
    if (!file) return;
    const state = testCase.result().state;
    const diagnostic = testCase.diagnostic();
    const outcome = state === 'failed' ? 'failed' : diagnostic?.flaky ? 'flaky' : undefined;
    if (!outcome) return;
    const firstError = testCase.result().errors?.[0];
    appendFileSync(
      file,
      `${JSON.stringify({
        outcome,
        file: relative(process.cwd(), testCase.module.moduleId),
        test: testCase.fullName,
        retries: diagnostic?.retryCount ?? 0,
        error: firstError
          ? String(firstError.message ?? firstError)
              .split('\n')[0]
              .slice(0, 300)
          : undefined,
      })}\n`,
    );
  }
}
