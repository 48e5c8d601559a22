"""A class: the teacher's screen on every student's laptop, and the class's answers on the projector.

What a class shares lives in a store, never in a session (a student's session and the teacher's may be on
different replicas). Pure: no Streamlit.

store.py          the interface every back end implements (Store), its values, join codes and bounds,
                  and `open_store()`, which picks the back end from the environment
sqlite_store.py   the default: SQLite from the standard library in a data folder (one server process)
redis_store.py    Redis, which replicas share (the job queue's Redis)
"""
