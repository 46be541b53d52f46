// The app of the Ant Design host pages (antd.html: antd 5, antd4.html: antd 4): the same
// code on both releases, written with htm instead of JSX and run with no bundler.
const { useState } = React;
const html = htm.bind(React.createElement);
const {
  Button, Cascader, DatePicker, Dropdown, Form, Input, Modal, Select, Table, Tabs, Transfer,
  Tree,
} = antd;
// antd 5 draws dates with dayjs, antd 4 with moment: each host page loads the one it needs.
const dates = window.moment || window.dayjs;

const CITIES = [
  "Amsterdam", "Athens", "Barcelona", "Belgrade", "Berlin", "Bern", "Bratislava", "Brussels",
  "Bucharest", "Budapest", "Copenhagen", "Dublin", "Edinburgh", "Florence", "Geneva",
  "Hamburg", "Helsinki", "Kraków", "Lisbon", "Ljubljana", "London", "Luxembourg", "Lyon",
  "Madrid", "Marseille", "Milan", "Monaco", "Munich", "Naples", "Nice", "Oslo", "Paris",
  "Porto", "Prague", "Reykjavík", "Riga", "Rome", "Rotterdam", "Seville", "Sofia",
  "Stockholm", "Tallinn", "Tirana", "Turin", "Valencia", "Valletta", "Venice", "Vienna",
  "Vilnius", "Warsaw", "Zagreb", "Zürich",
];
const PEOPLE = [
  { key: "1", name: "Ada Lovelace", age: 36, city: "London" },
  { key: "2", name: "Grace Hopper", age: 85, city: "Arlington" },
  { key: "3", name: "Alan Turing", age: 41, city: "Wilmslow" },
  { key: "4", name: "Katherine Johnson", age: 101, city: "Hampton" },
  { key: "5", name: "Linus Torvalds", age: 55, city: "Portland" },
  { key: "6", name: "Margaret Hamilton", age: 34, city: "Boston" },
  { key: "7", name: "Tim Berners-Lee", age: 35, city: "London" },
  { key: "8", name: "Barbara Liskov", age: 49, city: "Boston" },
];
const PLACES = [
  { value: "europe", label: "Europe", children: [
    { value: "france", label: "France", children: [
      { value: "paris", label: "Paris" }, { value: "lyon", label: "Lyon" }] },
    { value: "italy", label: "Italy", children: [
      { value: "rome", label: "Rome" }, { value: "milan", label: "Milan" }] }] },
  { value: "asia", label: "Asia", children: [
    { value: "japan", label: "Japan", children: [
      { value: "tokyo", label: "Tokyo" }, { value: "osaka", label: "Osaka" }] }] },
];
const GARDEN = [
  { title: "Fruits", key: "fruits", children: [
    { title: "Apples", key: "apples" }, { title: "Pears", key: "pears" },
    { title: "Plums", key: "plums" }] },
  { title: "Vegetables", key: "vegetables", children: [
    { title: "Carrots", key: "carrots" }, { title: "Leeks", key: "leeks" }] },
];
const CHANNELS = ["Email", "SMS", "Push", "Post", "Phone"].map((title) => (
  { key: title.toLowerCase(), title }));

function App() {
  const [chosen, setChosen] = useState("Nothing chosen");
  const [tab, setTab] = useState("general");
  const [targets, setTargets] = useState(["email"]);
  const [form] = Form.useForm();

  const columns = [
    { title: "Name", dataIndex: "name", sorter: (a, b) => a.name.localeCompare(b.name) },
    { title: "Age", dataIndex: "age", sorter: (a, b) => a.age - b.age },
    { title: "City", dataIndex: "city",
      filters: ["Arlington", "Boston", "Hampton", "London", "Portland", "Wilmslow"].map(
        (city) => ({ text: city, value: city })),
      onFilter: (value, row) => row.city === value },
    { title: "Action", key: "action",
      render: (_, row) => html`<a onClick=${() => setChosen("Invited: " + row.name)}>Invite</a>` },
  ];
  const confirmDelete = () => Modal.confirm({
    title: "Delete the project?",
    content: "Its files and history will be removed.",
    okText: "Delete", cancelText: "Keep it",
    onOk: () => setChosen("Project deleted"),
    onCancel: () => setChosen("Project kept"),
  });
  const account = {
    items: ["Profile", "Settings", "Sign out"].map((label) => ({ key: label, label })),
    onClick: ({ key }) => setChosen("Account: " + key),
  };
  return html`
    <h1>Workspace</h1>
    <section>
      <h2>Office</h2>
      <label htmlFor="office">Office</label>
      <${Select} id="office" showSearch style=${{ width: 240 }} placeholder="Choose an office"
        options=${CITIES.map((city) => ({ value: city, label: city }))}
        onChange=${(value) => setChosen("Office: " + value)} />
    </section>
    <section>
      <h2>Trip</h2>
      <label htmlFor="departure">Departure</label>
      <${DatePicker} id="departure" defaultPickerValue=${dates("2026-03-01")}
        onChange=${(_, text) => setChosen("Departure: " + text)} />
    </section>
    <section>
      <h2>Team</h2>
      <${Table} columns=${columns} dataSource=${PEOPLE} pagination=${{ pageSize: 5 }}
        onChange=${(pages) => setChosen("Team page: " + pages.current)} />
    </section>
    <section>
      <h2>Project</h2>
      <${Button} danger onClick=${confirmDelete}>Delete project<//>
      ${" "}
      <${Dropdown} menu=${account}>
        <a onClick=${(event) => event.preventDefault()}>Account</a>
      <//>
    </section>
    <section>
      <h2>Settings</h2>
      <${Tabs} activeKey=${tab} onChange=${(key) => { setTab(key); setChosen("Tab: " + key); }}
        items=${[
          { key: "general", label: "General", children: "General settings." },
          { key: "billing", label: "Billing", children: html`
            <ul><li>Plan: Team</li><li>Seats: 12</li><li>Renews: May 1, 2026</li></ul>` },
          { key: "security", label: "Security", children: "Two-factor sign-in is on." },
        ]} />
    </section>
    <section>
      <h2>Sign up</h2>
      <${Form} form=${form} layout="vertical" style=${{ maxWidth: 360 }}
        onFinish=${(values) => setChosen("Signed up: " + values.username)}>
        <${Form.Item} label="Username" name="username"
          rules=${[{ required: true, message: "Please enter a username" }]}>
          <${Input} />
        <//>
        <${Form.Item} label="Email" name="email"
          rules=${[{ required: true, message: "Please enter your email" },
                   { type: "email", message: "That is not a valid email" }]}>
          <${Input} />
        <//>
        <${Button} type="primary" htmlType="submit">Sign up<//>
      <//>
    </section>
    <section>
      <h2>Shipping</h2>
      <label htmlFor="destination">Destination</label>
      <${Cascader} id="destination" options=${PLACES} placeholder="Choose a destination"
        onChange=${(path) => setChosen("Destination: " + path.join(" / "))} />
    </section>
    <section>
      <h2>Garden</h2>
      <${Tree} checkable treeData=${GARDEN}
        onCheck=${(keys) => setChosen("Garden: " + keys.join(", "))}
        onExpand=${(keys) => setChosen("Open: " + keys.join(", "))} />
    </section>
    <section>
      <h2>Notifications</h2>
      <${Transfer} dataSource=${CHANNELS} targetKeys=${targets} titles=${["Off", "On"]}
        render=${(item) => item.title}
        onChange=${(keys) => {
          setTargets(keys);
          setChosen("On: " + CHANNELS.filter((c) => keys.includes(c.key)).map((c) => c.key).join(", "));
        }} />
    </section>
    <p id="chosen">${chosen}</p>`;
}

ReactDOM.createRoot(document.getElementById("root")).render(html`<${App} />`);
