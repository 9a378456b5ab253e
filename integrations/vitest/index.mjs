// freezegate's Vitest integration as test files import it: `import { record } from
// "freezegate/vitest"`. Loaded inside Vitest's workers, so it imports nothing of freezegate's
// library.

export { record } from "./inputs.mjs";
