// @ts-nocheck
import { describe, expect, it } from "vitest";
import { NOTES_HEADING, withNotes } from "../../bench/stats";

const report = "# Benchmark results\n\n| step | time |\n|---|---|\n| parse | 427 µs |\n";
const notes = `${NOTES_HEADING}\n\nMoney is where the SDK wins.\n`;

describe("bench results: hand-written notes", () => {
  it("keeps the previous file's notes after the new tables", () => {
    const previous = `# Benchmark results\n\n| step | time |\n|---|---|\n| parse | 500 µs |\n\n${notes}`;
    const written = withNotes(report, previous);
    expect(written).toBe(`${report}\n${notes}`);
    expect(written).not.toContain("500 µs");
  });

  it("writes the report alone when there were no notes or no file", () => {
    expect(withNotes(report, "# Benchmark results\n\n| old | table |\n")).toBe(report);
    expect(withNotes(report, "")).toBe(report);
  });
});
