// react-slick is CommonJS ("__esModule" and exports.default = Slider), imported as its documentation shows,
// in a "type": "module" package: the default import is the component, as under webpack and Vite 7.
import Slider from "react-slick";

function Slides() {
  return (
    <div data-testid="slides">
      <Slider dots={false} arrows={false} infinite={false}>
        <div data-testid="slide">one</div>
        <div data-testid="slide">two</div>
      </Slider>
    </div>
  );
}

export function installAcmeSliderHostComponents(host: { registerWidget(type: string, c: unknown): void }): void {
  host.registerWidget("acme_slides", Slides);
}
