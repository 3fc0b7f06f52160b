// LiveSimulator module.
