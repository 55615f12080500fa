#!/usr/bin/env node
// Every reference a partner can follow resolves, on the registry's page and in their editor:
//
// - README.md: a relative link names a file of the packed tarball (`npm pack --dry-run --json`),
//   a `#anchor` a heading (GitHub's slugs), and a link into the repository (package.json
//   `repository`) a file tracked there; `repository` itself must be set.
// - src/ and every packed file: a document named by file name (`X.md`) is in the tarball, and a
//   `README, "Heading"` reference names a README heading.
// - The published declarations (the TSDoc an editor shows): a repository path they name
//   (`examples/x.ts`) is in the tarball.
//
// Run after `npm run build`, so that dist/ is what gets packed. Exits 1 listing what does not
// resolve.
import { execFileSync } from "node:child_process";
import { existsSync, readdirSync, readFileSync } from "node:fs";
import { extname, posix } from "node:path";

/**
 * Files being rewritten on their own: what they still reference is reported, not failed, and so
 * are the same lines where the build copies them into dist/. Drop an entry once its file is clean.
 */
const pending = [];

const pkg = JSON.parse(readFileSync("package.json", "utf8"));
if (!existsSync("dist/index.d.ts")) {
  console.error("check-links: dist/ is missing; run `npm run build` first.");
  process.exit(1);
}

const run = (cmd, args) =>
  execFileSync(cmd, args, { encoding: "utf8", stdio: ["ignore", "pipe", "pipe"] });
const [{ files }] = JSON.parse(run("npm", ["pack", "--dry-run", "--json"]));
const packed = new Set(files.map((file) => file.path));
/** A packed file, or a folder holding one. */
const isPacked = (path) =>
  packed.has(path) || [...packed].some((file) => file.startsWith(`${path.replace(/\/$/, "")}/`));

/** Files tracked by git, or null outside a checkout (links into the repository are then skipped). */
let tracked = null;
try {
  tracked = new Set(run("git", ["ls-files"]).split("\n").filter(Boolean));
} catch {
  // Not a git checkout: there is no repository to look in.
}
const isTracked = (path) =>
  tracked.has(path) || [...tracked].some((file) => file.startsWith(`${path.replace(/\/$/, "")}/`));

const problems = [];
const deferred = [];
const report = (where, message) =>
  (pending.some((prefix) => where.startsWith(prefix)) ? deferred : problems).push(
    `${where}: ${message}`,
  );
const lineOf = (text, index) => text.slice(0, index).split("\n").length;

/** `https://github.com/owner/name` from package.json `repository`, or undefined. */
function repositoryUrl() {
  const { repository } = pkg;
  const url = typeof repository === "string" ? repository : repository?.url;
  if (!url) return undefined;
  return url
    .replace(/^git\+/, "")
    .replace(/\.git$/, "")
    .replace(/^github:/, "https://github.com/");
}

/** A heading's text as GitHub renders it: links, images, inline HTML and emphasis unwrapped. */
function plainHeading(text) {
  return text
    .replace(/!?\[([^\]]*)\]\([^)]*\)/g, "$1")
    .replace(/!?\[([^\]]*)\]\[[^\]]*\]/g, "$1")
    .replace(/<[^>]+>/g, "")
    .replace(/(^|\W)(\*\*|__|\*|_)(\S(?:.*?\S)?)\2(?=\W|$)/g, "$1$3")
    .trim();
}

/** GitHub's anchor of a heading: lower case, punctuation dropped, spaces to hyphens. */
function slug(text) {
  return text
    .toLowerCase()
    .replace(/[^\p{L}\p{M}\p{N}\p{Pc} -]/gu, "")
    .replace(/ /g, "-");
}

/**
 * A Markdown file's headings (texts and anchors, repeated anchors numbered `-1`, `-2` as GitHub
 * does) and its prose: the text with fenced code blanked and inline code spaced out, line
 * numbers kept.
 */
function readMarkdown(text) {
  const texts = new Set();
  const anchors = new Set();
  const occurrences = new Map();
  let fence = null;
  const prose = text.split("\n").map((line) => {
    const marker = /^ {0,3}(`{3,}|~{3,})/.exec(line)?.[1];
    if (marker && !fence) fence = marker;
    else if (marker && marker[0] === fence[0] && marker.length >= fence.length) fence = null;
    if (marker || fence) return "";
    const heading = /^ {0,3}#{1,6}[ \t]+(.*?)(?:[ \t]+#+)?[ \t]*$/.exec(line);
    if (heading) {
      const plain = plainHeading(heading[1]);
      texts.add(plain.replace(/`/g, ""));
      const base = slug(plain);
      let anchor = base;
      while (anchors.has(anchor)) {
        occurrences.set(base, (occurrences.get(base) ?? 0) + 1);
        anchor = `${base}-${occurrences.get(base)}`;
      }
      anchors.add(anchor);
    }
    return line.replace(/`+[^`]*`+/g, (code) => " ".repeat(code.length));
  });
  return { texts, anchors, prose: prose.join("\n") };
}

const readme = readMarkdown(readFileSync("README.md", "utf8"));
const repository = repositoryUrl();
if (!repository) {
  problems.push(
    'package.json: no "repository" field, so README links cannot resolve on the registry\'s page',
  );
}

/** Checks one README link target. */
function checkLink(target, line) {
  const where = `README.md:${line}`;
  if (/^mailto:/i.test(target)) return;
  if (target.startsWith("#")) {
    if (!readme.anchors.has(decodeURIComponent(target.slice(1)))) {
      report(where, `${target} matches no heading of README.md`);
    }
    return;
  }
  if (/^[a-z][a-z0-9+.-]*:|^\/\//i.test(target)) {
    const inRepository = repository && target.startsWith(`${repository}/`);
    const path = /^\/(?:blob|tree|raw)\/[^/]+\/([^#?]+)/.exec(
      inRepository ? target.slice(repository.length) : "",
    )?.[1];
    if (path && tracked && !isTracked(decodeURI(path))) {
      report(where, `${target} names ${decodeURI(path)}, which is not in the repository`);
    }
    return;
  }
  const [rawPath, anchor] = target.split("#");
  const path = posix.normalize(decodeURI(rawPath.split("?")[0]));
  if (path.startsWith("../") || path.startsWith("/")) {
    report(where, `${target} points outside the package`);
  } else if (!isPacked(path)) {
    report(
      where,
      `${target} is not in the package (npm pack lists ${packed.size} files): ship it, or link ` +
        `${repository ?? "<repository>"}/blob/main/${path}`,
    );
  } else if (anchor && path.endsWith(".md")) {
    const { anchors } = readMarkdown(readFileSync(path, "utf8"));
    if (!anchors.has(decodeURIComponent(anchor))) {
      report(where, `${target}: #${anchor} matches no heading of ${path}`);
    }
  }
}

/** Every link of the README: inline `[text](target)`, reference definitions, autolinks, HTML. */
const links = [
  /!?\[(?:[^\]\\]|\\.)*\]\(\s*<?([^)\s>]+)>?(?:\s+(?:"[^"]*"|'[^']*'))?\s*\)/g,
  /^ {0,3}\[[^\]]+\]:[ \t]*<?(\S+?)>?(?:[ \t]|$)/gm,
  /<((?:https?|mailto):[^>\s]+)>/g,
  /\b(?:href|src)="([^"]+)"/g,
];
let linkCount = 0;
for (const pattern of links) {
  for (const match of readme.prose.matchAll(pattern)) {
    linkCount++;
    checkLink(match[1], lineOf(readme.prose, match.index));
  }
}

/** The README's prose without its links (checked above) and URLs: what names documents. */
const blank = (text) => text.replace(/[^\n]/g, " ");
const readmeText = readme.prose
  .replace(links[0], blank)
  .replace(links[1], blank)
  .replace(/\[[^\]]+\]/g, blank);

/** `X.md` names in `text`, URLs left out. */
const documentName = /(?<![\w@/.-])((?:\.\/)?(?:[\w-]+\/)*[\w-][\w.-]*\.md)(?!\w)/g;
/** `README, "Heading"` (also `README "Heading"`), across a comment's line break. */
const readmeSection = /\bREADME,?(?:\s|\*(?!\/)|\/\/)+"([^"]{1,200})"/g;
/** Repository paths a declaration may name. */
const repositoryPath =
  /(?<![\w@/.:-])((?:examples|bench|test|tests|scripts|docs|src|spec)\/[\w./-]*\w)/g;
const withoutUrls = (text) => text.replace(/\b[a-z][a-z0-9+.-]*:\/\/\S+/gi, blank);

let sectionReferences = 0;
/** Lines of src/ files already reported as pending, by their text: their copies in dist/ are too. */
const pendingLines = new Map();

/** Checks what `text` (the file `file`) references. */
function checkReferences(file, text, { declarations = false } = {}) {
  const plain = withoutUrls(text);
  const lines = text.split("\n");
  const where = (index) => {
    const line = lineOf(text, index);
    const copyOf = pendingLines.get(lines[line - 1].trim());
    return copyOf && !file.startsWith("src/")
      ? `${copyOf} (built into ${file}:${line})`
      : `${file}:${line}`;
  };
  const note = (index, message) => {
    const at = where(index);
    report(at, message);
    if (pending.some((prefix) => at.startsWith(prefix)) && file.startsWith("src/")) {
      pendingLines.set(lines[lineOf(text, index) - 1].trim(), at);
    }
  };
  for (const match of plain.matchAll(documentName)) {
    const path = posix.normalize(match[1]);
    if (!packed.has(path))
      note(match.index, `names ${match[1]}, a document the package does not ship`);
  }
  for (const match of text.matchAll(readmeSection)) {
    sectionReferences++;
    const heading = match[1].replace(/\s*\n\s*(?:\*(?!\/)|\/\/)?\s*/g, " ").trim();
    if (!readme.texts.has(heading)) {
      note(match.index, `names README section "${heading}", which README.md has no heading for`);
    }
  }
  if (declarations) {
    for (const match of plain.matchAll(repositoryPath)) {
      if (!isPacked(match[1]))
        note(match.index, `names ${match[1]}, which the package does not ship`);
    }
  }
}

let referenceFiles = 0;
const sources = readdirSync("src", { recursive: true })
  .map((file) => `src/${file.split("\\").join("/")}`)
  .filter((file) => /\.[cm]?[jt]s$/.test(file))
  .sort();
for (const file of sources) {
  referenceFiles++;
  checkReferences(file, readFileSync(file, "utf8"));
}
const textFiles = new Set([
  ".js",
  ".cjs",
  ".mjs",
  ".ts",
  ".cts",
  ".mts",
  ".json",
  ".yaml",
  ".yml",
  ".md",
]);
for (const file of [...packed].sort()) {
  if (!textFiles.has(extname(file))) continue;
  referenceFiles++;
  if (file === "README.md") checkReferences(file, readmeText);
  else
    checkReferences(file, readFileSync(file, "utf8"), { declarations: /\.d\.[cm]?ts$/.test(file) });
}

for (const line of deferred) console.warn(`check-links: pending ${line}`);
if (problems.length) {
  for (const line of problems) console.error(`check-links: ${line}`);
  console.error(`check-links: ${problems.length} reference(s) do not resolve FAILED`);
  process.exit(1);
}
console.log(
  `check-links: ${linkCount} README links, ${readme.anchors.size} headings, references in ` +
    `${referenceFiles} files (src/ and the ${packed.size} packed, ${sectionReferences} naming a ` +
    `README section) ok` +
    (deferred.length ? `; ${deferred.length} pending in files under rewrite` : ""),
);
