"""The History, Sweep and Lab docks' controllers: each starts its jobs on a pool of its
own, keeps its state in the matching `model` module and draws through its view in
`widgets`.
"""
