// Tailwind v3's documented PostCSS set-up, with autoprefixer (browsers: package.json "browserslist").
module.exports = {
  plugins: {
    tailwindcss: {},
    autoprefixer: {},
  },
};
