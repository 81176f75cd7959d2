// The development stand-in for @neuralis/client, the platform client library the host shares.
// It implements exactly the API declared in neuralis-client.d.ts (shipped with neuralis-build). A
// module that imports anything else fails to link; the host page names the import on the console.

const theme = Object.freeze({ mode: "light", accent: "rgb(200, 40, 40)" });

/** The workspace theme: "light" or "dark", and the accent colour (the dev page's theme is fixed). */
export function useNeuralisTheme() {
  return theme;
}
