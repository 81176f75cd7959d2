// Inputs and forms: a select, a date picker, a draggable, a formik form validated by a yup schema.
import "react-datepicker/dist/react-datepicker.css";

import { DndContext, useDraggable } from "@dnd-kit/core";
import { Field, Form, Formik } from "formik";
import { useState } from "react";
import DatePicker from "react-datepicker";
import Select from "react-select";
import * as Yup from "yup";

const FLAVOURS = [
  { value: "lime", label: "Lime" },
  { value: "plum", label: "Plum" },
];

function ReactSelect() {
  return (
    <div data-testid="react-select">
      <Select options={FLAVOURS} defaultValue={FLAVOURS[1]} classNamePrefix="gallery-select" />
    </div>
  );
}

function ReactDatepicker() {
  const [day, setDay] = useState<Date | null>(new Date(2024, 4, 17));
  return (
    <div data-testid="react-datepicker">
      <DatePicker selected={day} onChange={(d: Date | null) => setDay(d)} inline />
    </div>
  );
}

function Handle() {
  const { attributes, listeners, setNodeRef, transform } = useDraggable({ id: "handle" });
  const style = transform ? { transform: `translate(${transform.x}px, ${transform.y}px)` } : undefined;
  return (
    <button ref={setNodeRef} style={style} {...listeners} {...attributes}>
      drag me
    </button>
  );
}

function DndKit() {
  return (
    <div data-testid="dnd-kit">
      <DndContext>
        <Handle />
      </DndContext>
    </div>
  );
}

const SCHEMA = Yup.object({ email: Yup.string().email("Not an email address").required("Required") });

function FormikYup() {
  return (
    <div data-testid="formik">
      <Formik initialValues={{ email: "ada@" }} validationSchema={SCHEMA} validateOnMount onSubmit={() => {}}>
        {({ errors }) => (
          <Form>
            <Field name="email" type="email" />
            {errors.email ? <p className="error">{errors.email}</p> : null}
          </Form>
        )}
      </Formik>
    </div>
  );
}

export const forms = {
  "react-select": ReactSelect,
  "react-datepicker": ReactDatepicker,
  "dnd-kit": DndKit,
  formik: FormikYup,
};
