// Component kits, each inside the provider it documents.
import "@mantine/core/styles.css";

import { Box, Button as ChakraButton, ChakraProvider, defaultSystem } from "@chakra-ui/react";
import { Switch } from "@headlessui/react";
import { Button, MantineProvider } from "@mantine/core";
import { ConfigProvider, DatePicker } from "antd";
import { useState } from "react";

function Mantine() {
  return (
    <div data-testid="mantine">
      <MantineProvider>
        <Button variant="filled">Mantine</Button>
      </MantineProvider>
    </div>
  );
}

function Antd() {
  return (
    <div data-testid="antd">
      <ConfigProvider theme={{ token: { colorPrimary: "#0b7a3e" } }}>
        <DatePicker placeholder="Pick a day" />
      </ConfigProvider>
    </div>
  );
}

function Chakra() {
  return (
    <div data-testid="chakra">
      <ChakraProvider value={defaultSystem}>
        <Box padding="2" borderWidth="1px">
          <ChakraButton colorPalette="teal">Chakra</ChakraButton>
        </Box>
      </ChakraProvider>
    </div>
  );
}

function Headless() {
  const [on, setOn] = useState(true);
  return (
    <div data-testid="headlessui">
      <Switch checked={on} onChange={setOn}>
        {on ? "on" : "off"}
      </Switch>
    </div>
  );
}

export const kits = { mantine: Mantine, antd: Antd, chakra: Chakra, headlessui: Headless };
