// What every action handler gets, and the shape of the handler tables.
import type { Ec2State } from '../ec2-state.js';
import type { QueryParams } from '../query-params.js';
import type { XmlChild } from '../xml.js';

export interface ActionContext {
  params: QueryParams;
  state: Ec2State;
}

/** Returns the response body inside <{Action}Response> (EC2) or <{Action}Result> (ELB). */
export type ActionHandler = (ctx: ActionContext) => XmlChild;

export type ActionTable = Record<string, ActionHandler>;
