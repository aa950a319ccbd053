// What build.mjs fills into sw.js: the shell's files (the page, the bundle, the offline page, the icons).
declare const __SHELL__: string[];
