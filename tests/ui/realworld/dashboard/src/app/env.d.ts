declare module "*.module.css" {
  const classes: Record<string, string>;
  export default classes;
}
declare module "*.css";
declare module "*.png" {
  const url: string;
  export default url;
}
declare module "*.svg" {
  const url: string;
  export default url;
}
