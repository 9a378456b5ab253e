// Test ids as freezegate writes them for Vitest: `FILE::SUITE > ... > TEST`, the file relative
// to the Vitest root with "/" separators, then the names Vitest prints joined by " > ". One
// function for the recorder's data and the ledger's matching, so the two can never name a
// test differently.

import { relative } from "node:path";

/** The names from the outermost suite to the test, as the task tree has them. */
export function taskNames(task) {
  const names = [];
  for (let t = task; t && t !== task.file; t = t.suite) names.unshift(t.name);
  return names;
}

/** The test's name as Vitest prints it: suites without a name are left out. */
export function printedName(names) {
  return names.filter((name, i) => name !== "" || i === names.length - 1).join(" > ");
}

/** The test file's path relative to the Vitest root, with "/" separators. */
export function testFilePath(root, file) {
  return relative(root, file.filepath).split("\\").join("/");
}

/** The test's id, `FILE::SUITE > ... > TEST`. */
export function testIdOf(root, test) {
  return `${testFilePath(root, test.file)}::${printedName(taskNames(test))}`;
}
