// What `neuralis-build ui` bundles besides code, typed for `tsc`: stylesheets imported for their side
// effect (into dist/app/host.css), CSS modules (class names scoped to this package), and assets, whose
// import is their URL (a data URL up to 4 KiB, else a file under dist/app/assets/).
declare module "*.module.css" {
  const classes: Record<string, string>;
  export default classes;
}
declare module "*.css";
declare module "*.svg" {
  const url: string;
  export default url;
}
declare module "*.png" {
  const url: string;
  export default url;
}
declare module "*.jpg" {
  const url: string;
  export default url;
}
declare module "*.jpeg" {
  const url: string;
  export default url;
}
declare module "*.gif" {
  const url: string;
  export default url;
}
declare module "*.webp" {
  const url: string;
  export default url;
}
declare module "*.avif" {
  const url: string;
  export default url;
}
declare module "*.ico" {
  const url: string;
  export default url;
}
declare module "*.woff2" {
  const url: string;
  export default url;
}
declare module "*.woff" {
  const url: string;
  export default url;
}
declare module "*.ttf" {
  const url: string;
  export default url;
}
declare module "*.mp3" {
  const url: string;
  export default url;
}
declare module "*.mp4" {
  const url: string;
  export default url;
}
declare module "*.pdf" {
  const url: string;
  export default url;
}
