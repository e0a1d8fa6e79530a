int __add_one(int v) { return v + 1; }
