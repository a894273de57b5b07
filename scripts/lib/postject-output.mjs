// postject injects the blob with LIEF compiled to WebAssembly, which prints through console.log and
// console.warn. Injecting into the official Node binary prints nine warnings of one kind:
//   warning: Can't find string offset for section name '.note.100'   (eight times)
//   warning: Can't find string offset for section name '.note'       (once)
// LIEF's ELF builder writes the PT_NOTE segment anew with a section header per note, and looks each
// note's section name up in the section-name string table, where its own names are not: '.note.100'
// is its name for note type 0x100 (NT_GNU_BUILD_ATTRIBUTE_OPEN), the annobin build notes of the
// runtime's .gnu.build.attributes section (removing that section with objcopy leaves only the second
// warning); '.note' is the new note holding the blob. The headers get an empty name, nothing else:
// Node finds the blob through the PT_NOTE program header, and the smoke test runs the result.
const SECTION_NAME_WARNING = /^warning: Can't find string offset for section name '(\.note(?:\.[0-9a-f]+)?)'$/;

/** Runs postject's inject with its console output captured; returns the lines it printed. */
export async function injectCapturingOutput(inject, ...args) {
  const lines = [];
  const { log, warn } = console;
  const capture = (...parts) => {
    lines.push(parts.join(' '));
  };
  console.log = capture;
  console.warn = capture;
  try {
    await inject(...args);
  } finally {
    console.log = log;
    console.warn = warn;
  }
  return lines.flatMap((l) => l.split('\n')).filter((l) => l.trim() !== '');
}

/** The lines to show: the known section-name warnings as one line that says why, anything else as printed. */
export function explainInjectOutput(lines) {
  const known = lines.filter((l) => SECTION_NAME_WARNING.test(l));
  const other = lines.filter((l) => !SECTION_NAME_WARNING.test(l));
  if (known.length === 0) return other;
  const names = [...new Set(known.map((l) => SECTION_NAME_WARNING.exec(l)[1]))].join(', ');
  return [
    `postject: ${known.length} note section(s) left unnamed (${names}: LIEF's names for the runtime's annobin build notes and the blob's note); harmless, Node finds the blob through the PT_NOTE segment (scripts/lib/postject-output.mjs)`,
    ...other,
  ];
}
