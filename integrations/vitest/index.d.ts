/**
 * Count `value` as one input of the test that is running, for the samples artifact of
 * freezegate's deposit gate. Values are distinct by their `util.inspect` text. In a test that
 * calls it, only recorded values count (not fast-check's generated ones). Does nothing when
 * no freeze ledger is applied; throws when called outside a running test.
 */
export declare function record(value: unknown): void;
