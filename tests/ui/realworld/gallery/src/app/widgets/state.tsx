// State and words: a Redux store, a MobX observer, i18next and react-intl.
import { configureStore, createSlice } from "@reduxjs/toolkit";
import i18next from "i18next";
import { makeAutoObservable } from "mobx";
import { observer } from "mobx-react-lite";
import { I18nextProvider, initReactI18next, useTranslation } from "react-i18next";
import { FormattedNumber, IntlProvider } from "react-intl";
import { Provider, useSelector } from "react-redux";

const counter = createSlice({
  name: "counter",
  initialState: { value: 40 },
  reducers: { add: (state, action: { payload: number }) => void (state.value += action.payload) },
});
const store = configureStore({ reducer: { counter: counter.reducer } });
store.dispatch(counter.actions.add(2));

function Count() {
  const value = useSelector((s: ReturnType<typeof store.getState>) => s.counter.value);
  return <p className="value">{value}</p>;
}

function Redux() {
  return (
    <div data-testid="redux-toolkit">
      <Provider store={store}>
        <Count />
      </Provider>
    </div>
  );
}

class Clicks {
  count = 0;
  constructor() {
    makeAutoObservable(this);
  }
  add() {
    this.count += 1;
  }
}
const clicks = new Clicks();

const Mobx = observer(function Mobx() {
  return (
    <div data-testid="mobx">
      <button onClick={() => clicks.add()}>clicked {clicks.count}</button>
    </div>
  );
});

const i18n = i18next.createInstance();
i18n.use(initReactI18next).init({
  lng: "fr",
  initAsync: false,
  resources: { fr: { translation: { hello: "Bonjour {{name}}" } } },
});

function Greeting() {
  const { t } = useTranslation();
  return <p>{t("hello", { name: "Ada" })}</p>;
}

function I18n() {
  return (
    <div data-testid="i18next">
      <I18nextProvider i18n={i18n}>
        <Greeting />
      </I18nextProvider>
    </div>
  );
}

function Intl() {
  return (
    <div data-testid="react-intl">
      <IntlProvider locale="de-DE">
        <FormattedNumber value={1234.5} style="currency" currency="EUR" />
      </IntlProvider>
    </div>
  );
}

export const state = { "redux-toolkit": Redux, mobx: Mobx, i18next: I18n, "react-intl": Intl };
