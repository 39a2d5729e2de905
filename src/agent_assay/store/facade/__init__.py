"""The `Store` facade (private: import it from `agent_assay.store`): the class, how a
store is opened, how it appends blocks (`writes`) and reads rows back (`reads`)."""
