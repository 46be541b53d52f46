// The catalogue. Prices in cents; every product has a unique name and price.
window.SHOP_PRODUCTS = [
  {
    id: "backpack", name: "Trail Backpack", category: "bags", price: 4999,
    description: "A 24-litre daypack with a padded laptop sleeve and rain cover.",
    details: "Made from recycled ripstop nylon with a ventilated back panel, hip belt and " +
      "two side pockets for water bottles. Fits a 15-inch laptop.",
  },
  {
    id: "bike-light", name: "Bike Light", category: "accessories", price: 999,
    description: "A rechargeable front light with three brightness modes.",
    details: "Up to 400 lumens, USB-C charging, six hours of light on the eco setting. " +
      "Clips onto any handlebar without tools.",
  },
  {
    id: "t-shirt", name: "Classic T-Shirt", category: "clothing", price: 1599,
    description: "A soft organic-cotton tee with the Trailhead logo.",
    details: "Regular fit, 100% organic cotton, printed with water-based inks. " +
      "Available in forest green.",
  },
  {
    id: "fleece-jacket", name: "Fleece Jacket", category: "clothing", price: 5499,
    description: "A midweight fleece that packs into its own pocket.",
    details: "Warm, quick-drying recycled polyester fleece with a full-length zip and " +
      "two zipped hand pockets.",
  },
  {
    id: "onesie", name: "Baby Onesie", category: "clothing", price: 799,
    description: "A snap-button onesie for the smallest hikers.",
    details: "Soft cotton jersey with nickel-free snaps, for ages 3 to 12 months.",
  },
  {
    id: "water-bottle", name: "Steel Water Bottle", category: "accessories", price: 1949,
    description: "An insulated 750 ml bottle that keeps drinks cold for 24 hours.",
    details: "Double-walled stainless steel, leak-proof lid with carry loop, " +
      "dishwasher safe.",
  },
  {
    id: "tote-bag", name: "Canvas Tote Bag", category: "bags", price: 1299,
    description: "A heavy canvas tote with an inside zip pocket.",
    details: "Holds a week of groceries. Reinforced handles long enough to wear " +
      "over the shoulder.",
  },
  {
    id: "camp-mug", name: "Enamel Camp Mug", category: "accessories", price: 1150,
    description: "A classic 350 ml enamel mug for coffee by the campfire.",
    details: "Steel with a chip-resistant enamel coating. Safe on a camp stove.",
  },
];
